package server

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProbeListenUnixKeepsNonSocket: a --socket path that names a regular
// file or a directory (an operator's typo, another program's file) is
// refused, naming the path and what is there, and left as it was. Before,
// anything at the path that did not answer a dial was removed as "a stale
// socket": the file's content was lost, an empty directory vanished.
func TestProbeListenUnixKeepsNonSocket(t *testing.T) {
	ts := newTestServer(t, "", false)
	file := filepath.Join(ts.dir, "notes.txt")
	if err := os.WriteFile(file, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(ts.dir, "adir")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, dir} {
		err := ts.s.ListenUnix(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a socket") {
			t.Errorf("ListenUnix(%s) = %v, want an error naming it and saying it is not a socket", p, err)
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "keep me" {
		t.Errorf("regular file at the socket path: %q, %v after ListenUnix; want it kept", b, err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Errorf("directory at the socket path: %v after ListenUnix; want it kept", err)
	}
}

// TestProbeListenUnixReplacesStaleSocket: a socket file left by a dead host
// (nothing listens) is still replaced.
func TestProbeListenUnixReplacesStaleSocket(t *testing.T) {
	ts := newTestServer(t, "", false)
	p := filepath.Join(ts.dir, "stale.sock")
	ln, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Lstat(p); err != nil {
		t.Fatal(err)
	}
	if err := ts.s.ListenUnix(p); err != nil {
		t.Fatalf("ListenUnix over a stale socket: %v", err)
	}
	c, err := net.Dial("unix", p)
	if err != nil {
		t.Fatalf("dial the replaced socket: %v", err)
	}
	c.Close()
}
