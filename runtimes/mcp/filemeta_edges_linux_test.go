//go:build linux

package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/landlock"
	"github.com/aios-host/aios-host/internal/proclimit"
)

// TestSandboxedServerCannotChmod: Landlock governs a file's contents and
// names, not its mode, and the server runs as the host's user: a stdio
// server with a sandbox of read paths only (it writes no file) made a
// file of that user outside them world-writable (chmod 0777). Without
// sandbox.write the seccomp filter refuses the chmod, chown, utime and
// xattr calls with EPERM, and the file keeps its mode.
func TestSandboxedServerCannotChmod(t *testing.T) {
	if v, err := landlock.Version(); err != nil || v < 4 {
		t.Skipf("Landlock ABI 4 is not available here (%d, %v)", v, err)
	}
	allowed, secret := t.TempDir(), t.TempDir()
	victim := filepath.Join(secret, "secret.txt")
	if err := os.WriteFile(victim, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	read := []string{allowed}
	if proclimit.Race {
		read = append(read, "/proc") // the race runtime reads /proc/self/maps
	}
	boxed := fakeConfig(t, "sandbox")
	boxed.Sandbox = &Sandbox{Read: read}
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"ro": boxed})
	if err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	v, err := call(t, rec.provider("org.aios.mcp.ro"), "mcp-ro-reach", map[string]any{"chmod": victim}, 10*time.Second)
	if err != nil {
		t.Fatalf("%v\n%s", err, logs.String())
	}
	got := v.(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	if !strings.Contains(got, "chmod=") || !strings.Contains(got, "operation not permitted") {
		t.Errorf("chmod of a file outside the sandbox: %q, want operation not permitted", got)
	}
	if fi, err := os.Stat(victim); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the sandboxed server changed %s: %v %v", victim, fi.Mode(), err)
	}
}
