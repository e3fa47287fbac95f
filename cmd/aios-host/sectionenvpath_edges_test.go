package main

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/mcpserver"
	"github.com/aios-host/aios-host/runtimes/mcp"
	"github.com/aios-host/aios-host/runtimes/python"
	"github.com/aios-host/aios-host/server"
)

// TestSectionPathEnvVariableRefused: the top-level path settings (data,
// plugins, …) refuse an environment variable the configuration does not
// expand, but the sections' own paths took one literally: socket:
// $XDG_RUNTIME_DIR/aios.sock listened on a socket in a folder named
// "$XDG_RUNTIME_DIR" of the working directory (made without a word),
// discovery.dirs: [$HOME/adapters] watched nothing, cache_dir made a
// "$HOME" folder. Each is refused naming the key and the variable, as
// "~name/" of no account is.
func TestSectionPathEnvVariableRefused(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		file, key, ref string
		load           func(*config.Config) error
	}{
		{"server:\n  socket: $XDG_RUNTIME_DIR/aios.sock\n", "server.socket", "$XDG_RUNTIME_DIR", func(c *config.Config) error { _, err := server.LoadConfig(c); return err }},
		{"server:\n  signing_key: ${KEYS}/host.pem\n", "server.signing_key", "${KEYS}", func(c *config.Config) error { _, err := server.LoadConfig(c); return err }},
		{"server:\n  tokens:\n    - {agent: peer, token_file: $HOME/tok}\n", "server.tokens[0].token_file", "$HOME", func(c *config.Config) error { _, err := server.LoadConfig(c); return err }},
		{"discovery:\n  dirs: [/srv/a, $HOME/adapters]\n", "discovery.dirs[1]", "$HOME", func(c *config.Config) error { _, err := discovery.LoadConfig(c); return err }},
		{"discovery:\n  desktop_dirs: ['%APPDATA%/apps']\n", "discovery.desktop_dirs[0]", "%APPDATA%", func(c *config.Config) error { _, err := discovery.LoadConfig(c); return err }},
		{"runtimes:\n  wasm:\n    cache_dir: $HOME/.cache/aios\n", "runtimes.wasm.cache_dir", "$HOME", func(c *config.Config) error { _, err := wasmCoreLoader(c, log); return err }},
		{"runtimes:\n  python:\n    interpreter: $VENV/bin/python3\n", "runtimes.python.interpreter", "$VENV", func(c *config.Config) error { _, err := python.ConfigFrom(c); return err }},
		{"runtimes:\n  python:\n    sdk_path: ${SDK}\n", "runtimes.python.sdk_path", "${SDK}", func(c *config.Config) error { _, err := python.ConfigFrom(c); return err }},
		{"mcp:\n  servers:\n    fs:\n      command: /bin/true\n      dir: $HOME/srv\n", "mcp.servers.fs: dir", "$HOME", func(c *config.Config) error { _, err := mcp.LoadConfig(c); return err }},
		{"mcp:\n  servers:\n    fs:\n      command: /bin/true\n      sandbox:\n        read: [$HOME/docs]\n", "mcp.servers.fs: sandbox.read[0]", "$HOME", func(c *config.Config) error { _, err := mcp.LoadConfig(c); return err }},
		{"agents:\n  mcp: {grants: ['CallTool(*)']}\nmcp:\n  http:\n    jwks_file: $HOME/jwks.json\n", "mcp.http.jwks_file", "$HOME", func(c *config.Config) error { _, err := mcpserver.LoadConfig(c); return err }},
	} {
		cfg, err := config.Parse([]byte("data: /tmp/aios-envpath\n"+tc.file), "c.yaml")
		if err != nil {
			t.Fatalf("%q: %v", tc.file, err)
		}
		err = tc.load(cfg)
		if err == nil || !strings.Contains(err.Error(), tc.key+": ") || !strings.Contains(err.Error(), "environment variables, so "+tc.ref) {
			t.Errorf("%q:\n got %v\nwant an error naming %s and %s", tc.file, err, tc.key, tc.ref)
		}
	}
	// A "$" naming no variable is a name like another.
	cfg, err := config.Parse([]byte("data: /tmp/aios-envpath\nserver:\n  socket: /tmp/cost$/a.sock\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := server.LoadConfig(cfg); err != nil {
		t.Errorf("socket /tmp/cost$/a.sock: %v", err)
	}
}
