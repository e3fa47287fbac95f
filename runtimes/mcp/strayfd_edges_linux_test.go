package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestServerInheritsNoStrayFD: a descriptor the host inherited without
// close-on-exec (from the shell or launcher that started it) passed to
// every stdio MCP server the bridge started, sandboxed or not, as it did
// to Python workers (p207): Go's fork passes such descriptors on besides
// the ones asked for. The bridge marks them close-on-exec before it starts
// a server (internal/cloexec).
func TestServerInheritsNoStrayFD(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "host-secret")
	if err := os.WriteFile(secret, []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(secret, unix.O_RDONLY, 0) // no O_CLOEXEC, as one inherited
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	out := filepath.Join(t.TempDir(), "fds")
	sc := fakeConfig(t, "unused")
	sc.Command, sc.Args = "/bin/sh", []string{"-c", `for f in /proc/$$/fd/*; do readlink "$f"; done > "$OUT.tmp"; mv "$OUT.tmp" "$OUT"; exec sleep 30`}
	sc.Env["OUT"] = out
	sc.ConnectTimeout = 2 * time.Second
	if _, _, _, err := startBridge(t, map[string]ServerConfig{"p": sc}); err == nil {
		t.Log("(the server never answers initialize)")
	}
	var list []byte
	testutil.Eventually(t, "the server listed its descriptors", func() bool {
		list, err = os.ReadFile(out)
		return err == nil
	})
	if strings.Contains(string(list), secret) {
		t.Fatalf("the MCP server inherited the host's descriptor %d of %s:\n%s", fd, secret, list)
	}
}
