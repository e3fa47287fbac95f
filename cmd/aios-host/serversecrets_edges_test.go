package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunServerSecretsCheckedFirst: `run` checks the server section
// before it loads anything (TestRunServerSectionCheckedFirst), but only
// its keys and types: a server.tokens entry whose token_env was empty,
// whose token_file or a signing_key that was missing, or whose agent
// was not configured, was found by the server after every plugin had
// loaded (26 s with the samples) and been closed again. They are now
// found first, with the file and line, and no plugin is loaded.
func TestRunServerSecretsCheckedFirst(t *testing.T) {
	wasm, err := os.ReadFile(filepath.Join("..", "..", "samples", "plugins", "c-echo.wasm"))
	if err != nil {
		t.Skip("samples not built:", err)
	}
	t.Setenv("AIOS_PROBE_EMPTY_TOKEN", "")
	for _, tc := range []struct{ section, want string }{
		{"server:\n  tokens:\n    - {agent: cli, token_env: AIOS_PROBE_EMPTY_TOKEN}\n", "config.yaml:2: server.tokens: token of agent cli: environment variable AIOS_PROBE_EMPTY_TOKEN is empty"},
		{"server:\n  tokens:\n    - {agent: cli, token_file: no-such-token}\n", "no-such-token: no such file"},
		{"server:\n  tokens:\n    - {agent: nobody, token: 0123456789abcdef0123}\n", `server.tokens: agent "nobody" is not in agents`},
		{"server:\n  signing_key: no-such-key.pem\n", "server.signing_key: open"},
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
			t.Errorf("%q: run loaded the plugins before finding the server section bad:\n%s", tc.section, errs)
		}
	}
}
