package mcp

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/mcpserver"
)

// TestConfigEntryKeyLine: a negative connect_timeout (or any of four
// other keys) was refused with "max_resources, connect_timeout,
// reconnect_max, max_message_bytes and decode_budget must not be
// negative", not saying which; and every error about one key of an
// mcp.servers entry named the entry's line, not the key's.
func TestConfigEntryKeyLine(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"mcp:\n  servers:\n    x:\n      command: /bin/true\n      connect_timeout: -1s\n", "c.yaml:5: mcp.servers.x: connect_timeout must not be negative, got -1s"},
		{"mcp:\n  servers:\n    x:\n      command: /bin/true\n      decode_budget: -3\n", "c.yaml:5: mcp.servers.x: decode_budget must not be negative, got -3"},
		{"mcp:\n  servers:\n    x:\n      command: /bin/true\n      sandbox:\n        read: [/a, \"\"]\n", "c.yaml:6: mcp.servers.x: sandbox.read[1]: empty path"},
		{"mcp:\n  servers:\n    x:\n      url: ftp://a\n", `c.yaml:4: mcp.servers.x: url "ftp://a"`},
		{"mcp:\n  servers:\n    x: {}\n", "c.yaml:3: mcp.servers.x: needs a command"},
	} {
		cfg, err := config.Parse([]byte(tc.doc), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(cfg); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s…", tc.doc, err, tc.want)
		}
	}
}

// TestSectionKeysMatchServer: mcp.tools_list (README: "tools_list:
// callable … (or: all)"), a key of mcpserver's, was not in this package's
// view of the mcp section, so every command that loads a host (run, list,
// call, mcp) refused it: `unknown key "tools_list"`. The two views of the
// section must name the same keys.
func TestSectionKeysMatchServer(t *testing.T) {
	keys := func(ty reflect.Type) []string {
		var out []string
		for i := 0; i < ty.NumField(); i++ {
			if name, _, _ := strings.Cut(ty.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
				out = append(out, name)
			}
		}
		slices.Sort(out)
		return out
	}
	if a, b := keys(reflect.TypeOf(section{})), keys(reflect.TypeOf(mcpserver.Config{})); !slices.Equal(a, b) {
		t.Errorf("runtimes/mcp reads the mcp keys %v, mcpserver %v", a, b)
	}
	cfg, err := config.Parse([]byte("mcp:\n  tools_list: all\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(cfg); err != nil {
		t.Errorf("mcp.tools_list: all: %v", err)
	}
}

// TestStdinDrainKeyTaken: mcp.stdin_drain (README, docs/mcp.md: how long
// aios-host mcp answers the requests read before stdin ended), a key of
// mcpserver's added after TestSectionKeysMatchServer, was not in this
// package's view of the section, so every command that loads a host (run,
// list, call, mcp itself) refused a config setting it: `mcp.stdin_drain:
// unknown key "stdin_drain"`. It is taken, as every mcpserver key.
func TestStdinDrainKeyTaken(t *testing.T) {
	cfg, err := config.Parse([]byte("mcp:\n  stdin_drain: 5s\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(cfg); err != nil {
		t.Errorf("mcp.stdin_drain: 5s: %v", err)
	}
}
