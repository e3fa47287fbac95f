//go:build unix

package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckSocketUnderFileFails: CheckSocket, which run calls so that a
// socket path that cannot be one fails before every plugin loads, passed a
// path beneath a file (server.socket: /etc/passwd/h.sock, a slip), as
// "a folder on the way missing, made at listen": run loaded every plugin
// and then failed at listen. It fails at the check, naming the path.
func TestCheckSocketUnderFileFails(t *testing.T) {
	f := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(f, "h.sock")
	err := CheckSocket(p)
	if err == nil || !strings.Contains(err.Error(), "socket "+p) || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("CheckSocket(%s): %v, want it refused naming the path", p, err)
	}
	// A folder not there yet is made at listen: fine.
	if err := CheckSocket(filepath.Join(filepath.Dir(f), "new", "h.sock")); err != nil {
		t.Errorf("CheckSocket in a folder not made yet: %v", err)
	}
}
