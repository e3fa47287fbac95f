package mcp

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/config"
)

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		wantErr string
		check   func(t *testing.T, m map[string]ServerConfig)
	}{
		{name: "none", yaml: "", check: func(t *testing.T, m map[string]ServerConfig) {
			if len(m) != 0 {
				t.Errorf("servers = %v", m)
			}
		}},
		{name: "stdio with defaults", yaml: "mcp:\n  servers:\n    everything:\n      command: npx\n      args: [mcp-server-everything]\n      dir: sub\n",
			check: func(t *testing.T, m map[string]ServerConfig) {
				sc := m["everything"]
				if sc.Command != "npx" || sc.ConnectTimeout != DefaultConnectTimeout || sc.MaxResources != DefaultMaxResources || !sc.importResources() ||
					sc.MaxMessageBytes != 16<<20 || sc.DecodeBudget != 256<<20 {
					t.Errorf("sc = %+v", sc)
				}
				if !filepath.IsAbs(sc.Dir) || filepath.Base(sc.Dir) != "sub" {
					t.Errorf("dir %q not resolved against the config file", sc.Dir)
				}
			}},
		{name: "url", yaml: "mcp:\n  servers:\n    search:\n      url: https://mcp.example.com/mcp\n      token: abc\n      resources: false\n      connect_timeout: 3s\n",
			check: func(t *testing.T, m map[string]ServerConfig) {
				sc := m["search"]
				if sc.endpointHost() != "mcp.example.com" || sc.importResources() || sc.ConnectTimeout != 3*time.Second {
					t.Errorf("sc = %+v", sc)
				}
			}},
		{name: "capability_required", yaml: "mcp:\n  servers:\n    fs:\n      command: x\n      capability_required:\n        read_file: ['ReadSpace(files)']\n        '*_file': ['ReadSpace(files)', 'Network(*.example.com)']\n",
			check: func(t *testing.T, m map[string]ServerConfig) {
				sc := m["fs"]
				if got := strings.Join(sc.requiredFor("read_file"), " "); got != "ReadSpace(files) Network(*.example.com)" {
					t.Errorf("read_file requires %q", got)
				}
				if got := sc.requiredFor("list"); len(got) != 0 {
					t.Errorf("list requires %q", got)
				}
			}},
		{name: "message limits", yaml: "mcp:\n  servers:\n    a:\n      command: x\n      max_message_bytes: 1048576\n      decode_budget: 33554432\n",
			check: func(t *testing.T, m map[string]ServerConfig) {
				if sc := m["a"]; sc.MaxMessageBytes != 1<<20 || sc.DecodeBudget != 32<<20 {
					t.Errorf("sc = %+v", sc)
				}
			}},
		{name: "negative decode_budget", yaml: "mcp:\n  servers:\n    a:\n      command: x\n      decode_budget: -1\n", wantErr: "must not be negative"},
		{name: "bad capability_required", yaml: "mcp:\n  servers:\n    a:\n      command: x\n      capability_required: {secret: ['ReadSpace(x']}\n", wantErr: "capability_required.secret"},
		{name: "empty capability_required", yaml: "mcp:\n  servers:\n    a:\n      command: x\n      capability_required: {secret: []}\n", wantErr: "at least one capability"},
		{name: "outbound keys are left to mcpserver", yaml: "mcp:\n  agent: mcp\n  export: ['*']\n  http: {issuer: x}\n"},
		{name: "unknown key", yaml: "mcp:\n  servers:\n    a:\n      comand: npx\n", wantErr: `cfg.yaml:4: mcp.servers.a.comand: unknown key "comand"`},
		{name: "both", yaml: "mcp:\n  servers:\n    a:\n      command: x\n      url: http://h/\n", wantErr: "has both command"},
		{name: "neither", yaml: "mcp:\n  servers:\n    a: {}\n", wantErr: "cfg.yaml:3: mcp.servers.a: needs a command"},
		{name: "bad name", yaml: "mcp:\n  servers:\n    A.b:\n      command: x\n", wantErr: "invalid MCP server name"},
		{name: "bad url", yaml: "mcp:\n  servers:\n    a:\n      url: ftp://h/\n", wantErr: "want an http:// or https:// URL"},
		{name: "token on stdio", yaml: "mcp:\n  servers:\n    a:\n      command: x\n      token: t\n", wantErr: "url servers only"},
		{name: "args on url", yaml: "mcp:\n  servers:\n    a:\n      url: http://h/\n      args: [x]\n", wantErr: "command servers only"},
		{name: "negative", yaml: "mcp:\n  servers:\n    a:\n      command: x\n      max_resources: -1\n", wantErr: "must not be negative"},
		{name: "bad env", yaml: "mcp:\n  servers:\n    a:\n      command: x\n      env: {'A=B': c}\n", wantErr: "invalid variable name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(tc.yaml), filepath.Join(t.TempDir(), "cfg.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			m, err := LoadConfig(cfg)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.check != nil {
				tc.check(t, m)
			}
		})
	}
}

func TestEnvironIsMinimal(t *testing.T) {
	t.Setenv("AIOS_SECRET_FOR_TEST", "x")
	env := ServerConfig{Env: map[string]string{"B": "2", "A": "1"}}.environ()
	joined := strings.Join(env, "\n")
	if strings.Contains(joined, "AIOS_SECRET_FOR_TEST") || !strings.HasSuffix(joined, "A=1\nB=2\n"+bridgeDepthEnv+"=1") {
		t.Fatalf("env = %v", env)
	}
	if !strings.Contains(strings.Join(ServerConfig{InheritEnv: true}.environ(), "\n"), "AIOS_SECRET_FOR_TEST=x") {
		t.Fatal("inherit_env did not pass the environment")
	}
}
