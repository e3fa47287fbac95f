package mcp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestRelativeCommandIsTheConfigFilesFolder: a stdio server's command
// given as a relative path (./bin/server, as a project's config beside its
// server names it) was run relative to the host's working directory, so
// the same config started the server from its own folder and failed
// ("no such file or directory") from any other; dir and sandbox paths were
// already resolved against the config file's folder. Such a command is
// resolved against that folder too, or against dir when given (the
// server's working directory, as `cd dir && ./server` runs it); a bare
// name is still looked up in PATH.
func TestRelativeCommandIsTheConfigFilesFolder(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(base, "bin", "server")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	for _, tc := range []struct{ doc, want string }{
		{"command: ./bin/server", filepath.Join(base, "bin", "server")},
		{"command: bin/server", filepath.Join(base, "bin", "server")},
		{"command: ./server\n      dir: bin", filepath.Join(base, "bin", "server")},
		{"command: " + exe, exe},
		{"command: node", "node"},
	} {
		cfg, err := config.Parse([]byte("mcp:\n  servers:\n    rel:\n      "+tc.doc+"\n"), filepath.Join(base, "config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		servers, err := LoadConfig(cfg)
		if err != nil {
			t.Fatalf("%q: %v", tc.doc, err)
		}
		if got := servers["rel"].Command; got != tc.want {
			t.Errorf("%q: command %q, want %q", tc.doc, got, tc.want)
		}
	}
	// And it runs so from elsewhere: the test's working directory is
	// the package's, not base.
	cfg, err := config.Parse([]byte("mcp:\n  servers:\n    rel:\n      command: ./bin/server\n      args: [\"-test.run=^$\"]\n      env: {AIOS_MCP_FAKE: good, GORACE: atexit_sleep_ms=0}\n"), filepath.Join(base, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	servers, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, rec, logs, err := startBridge(t, servers)
	if err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	if rec.provider("org.aios.mcp.rel") == nil {
		t.Fatalf("the server of a command relative to the config file did not connect\n%s", logs.String())
	}
}
