package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunMCPSectionCheckedFirst: a mistake in the mcp section of the MCP
// server (tools_list, stdin_drain, http) was found by the server, after
// every plugin had loaded (minutes for a folder of WASM modules and Python
// tools), as the server section's once was; run checks it before it
// loads any plugin.
func TestRunMCPSectionCheckedFirst(t *testing.T) {
	wasm, err := os.ReadFile(filepath.Join("..", "..", "samples", "plugins", "c-echo.wasm"))
	if err != nil {
		t.Skip("samples not built:", err)
	}
	for _, tc := range []struct{ section, want string }{
		{"mcp:\n  tools_list: Callable\n", `config.yaml:2: mcp.tools_list: "Callable": want callable or all`},
		{"mcp:\n  stdin_drain: -1s\n", "config.yaml:2: mcp.stdin_drain: -1s: must not be negative"},
		{"mcp:\n  http:\n    max_sessions: -1\n", "config.yaml:3: mcp.http.max_sessions: -1"},
	} {
		e := newEnv(t)
		if err := os.WriteFile(filepath.Join(e.plugins, "c-echo.wasm"), wasm, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := writeConfig(t, tc.section)
		code, errs := runWith(t, strings.NewReader(""), io.Discard, "run", "--plugins", e.plugins, "--data", e.data, "--config", cfg, "--socket", filepath.Join(t.TempDir(), "h.sock"))
		if code != exitFail || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, stderr %s; want exit 1 with %q", tc.section, code, errs, tc.want)
		}
		if strings.Contains(errs, "c-echo") {
			t.Errorf("%q: run loaded the plugins before finding the mcp section bad:\n%s", tc.section, errs)
		}
	}
}
