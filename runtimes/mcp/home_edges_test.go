package mcp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestHomeInPathKeys: an mcp.servers entry's dir: ~/srv was joined to
// the config file's folder (<folder>/~/srv), so the server failed to start
// in a folder that does not exist, while the entry's sandbox paths took
// "~/" as the home folder, as README says of every path of the config.
// dir takes it as the home folder too.
func TestHomeInPathKeys(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := t.TempDir()
	file := filepath.Join(dir, "config.yaml")
	doc := "mcp:\n  servers:\n    a: {command: echo, dir: ~/srv}\n    b: {command: echo, dir: rel}\n"
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	servers, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := servers["a"].Dir, filepath.Join(home, "srv"); got != want {
		t.Errorf("dir ~/srv is %q; want %q", got, want)
	}
	if got, want := servers["b"].Dir, filepath.Join(dir, "rel"); got != want {
		t.Errorf("dir rel is %q; want %q (the config file's folder)", got, want)
	}
}
