//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSocketErrorNamesKey: a server.socket that cannot be one (a path
// beneath a file) stopped run with "socket PATH: …", naming neither the
// key nor its line (found by p137), where server.http's and --http's
// errors name theirs. It is said at the config's file and line, with
// server.socket; given by --socket, the flag.
func TestRunSocketErrorNamesKey(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(file, "h.sock")
	cfg := filepath.Join(dir, "host.yaml")
	if err := os.WriteFile(cfg, []byte("server:\n  socket: "+bad+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := e.run("", "--config", cfg, "run")
	if want := cfg + ":2: server.socket: socket " + bad; code == exitOK || !strings.Contains(errs, want) {
		t.Errorf("server.socket beneath a file: exit %d, stderr %q; want %q", code, errs, want)
	}
	code, _, errs = e.run("", "run", "--socket", bad)
	if want := "--socket: socket " + bad; code == exitOK || !strings.Contains(errs, want) {
		t.Errorf("--socket beneath a file: exit %d, stderr %q; want %q", code, errs, want)
	}
}
