package mcpserver

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
)

// TestJWKSURLChecked: an mcp.http.jwks_url or issuer that is no
// http(s) URL (a scheme forgotten: auth.example.com/jwks.json) was taken:
// the host started, and every MCP client then got 503 "token verification
// unavailable: issuer keys: Get "auth.example.com/jwks.json": unsupported
// protocol scheme" while the operator's log said nothing. It is refused
// at start with the key's line, as mcp.http.resource is.
func TestJWKSURLChecked(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"mcp:\n  http:\n    issuer: https://auth.example.com\n    jwks_url: auth.example.com/jwks.json\n", `c.yaml:4: mcp.http.jwks_url: "auth.example.com/jwks.json" is not an http(s) URL`},
		{"mcp:\n  http:\n    issuer: https://auth.example.com\n    jwks_url: 'ftp://auth.example.com/jwks.json'\n", `c.yaml:4: mcp.http.jwks_url: "ftp://auth.example.com/jwks.json" is not an http(s) URL`},
		{"mcp:\n  http:\n    issuer: auth.example.com\n    jwks_url: https://auth.example.com/jwks.json\n", `c.yaml:3: mcp.http.issuer: "auth.example.com" is not an http(s) URL`},
	} {
		cfg, err := config.Parse([]byte(tc.doc), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if err := AddDefaultAgent(cfg); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(cfg); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s…", tc.doc, err, tc.want)
		}
	}
	// Good ones still load.
	cfg, _ := config.Parse([]byte("mcp:\n  http:\n    issuer: https://auth.example.com/realms/x\n    jwks_url: http://keycloak:8080/realms/x/protocol/openid-connect/certs\n"), "c.yaml")
	_ = AddDefaultAgent(cfg)
	if _, err := LoadConfig(cfg); err != nil {
		t.Errorf("a good issuer and jwks_url: %v", err)
	}
}

// TestPlainHTTPJWKSURLWarned: an http:// jwks_url on another machine was
// taken without a word, though whoever is on the network path can swap
// the keys and mint tokens. It is still taken (a key server on a
// container network is a real set-up), with a warning; on a loopback
// host it is not warned about.
func TestPlainHTTPJWKSURLWarned(t *testing.T) {
	for _, tc := range []struct {
		url  string
		warn bool
	}{
		{"http://keycloak:8080/realms/x/protocol/openid-connect/certs", true},
		{"http://10.0.0.2/jwks.json", true},
		{"https://auth.example.com/jwks.json", false},
		{"http://127.0.0.1:8080/jwks.json", false},
		{"http://localhost/jwks.json", false},
		{"http://[::1]:9/jwks.json", false},
	} {
		cfg, err := config.Parse([]byte("mcp:\n  http:\n    issuer: https://auth.example.com\n    jwks_url: "+tc.url+"\n"), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Data = t.TempDir()
		cfg.Plugins = nil
		if err := AddDefaultAgent(cfg); err != nil {
			t.Fatal(err)
		}
		h, err := host.New(host.Options{Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		var logs bytes.Buffer
		s, err := New(Options{Host: h, Logger: slog.New(slog.NewTextHandler(&logs, nil)), Resource: "http://127.0.0.1/mcp"})
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		got := strings.Contains(logs.String(), "jwks_url is plain http to another machine")
		if got != tc.warn {
			t.Errorf("%s: warned %v, want %v; log:\n%s", tc.url, got, tc.warn, logs.String())
		}
		_ = s.Close()
		_ = h.Close()
	}
}
