//go:build unix

package server

import (
	"net"
	"os"
	"testing"
	"time"
)

// fastSocketChecks makes watchSocket look every 20 ms for one test.
func fastSocketChecks(t *testing.T) {
	old := socketCheckEvery
	socketCheckEvery = 20 * time.Millisecond
	t.Cleanup(func() { socketCheckEvery = old })
}

// waitDial dials path until it answers or 5 s pass.
func waitDial(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("unix", path)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not answer: %v", path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A socket file removed while the host runs (a cleaner of /tmp or /run,
// an rm) is made again: the host was up but unreachable, and `list` and
// `call` silently ran in a process of their own (p25's leftover). Calls
// reach it on the new socket, as on the old.
func TestSocketRemovedIsMadeAgain(t *testing.T) {
	fastSocketChecks(t)
	ts := newTestServer(t, "", false)
	if err := os.Remove(ts.sock); err != nil {
		t.Fatal(err)
	}
	waitDial(t, ts.sock)
	st, err := os.Lstat(ts.sock)
	if err != nil || st.Mode().Type() != os.ModeSocket || st.Mode().Perm() != 0o600 {
		t.Fatalf("the socket made again: %v %v", st, err)
	}
	c := dial(t, ts)
	var out map[string]any
	if err := c.Call(t.Context(), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": "again"}}, &out); err != nil {
		t.Fatalf("a call on the socket made again: %v", err)
	}
	// And its folder too.
	if err := os.RemoveAll(ts.dir); err != nil {
		t.Fatal(err)
	}
	waitDial(t, ts.sock)
}

// A socket path that another host took after this one's file went is
// left to it: this host does not take it back, and does not remove it at
// Close (Go's listener removed its path by name when closed, whoever's
// socket was there by then).
func TestSocketTakenByAnotherIsLeft(t *testing.T) {
	fastSocketChecks(t)
	ts := newTestServer(t, "", false)
	if err := os.Remove(ts.sock); err != nil {
		t.Fatal(err)
	}
	other, err := net.Listen("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	otherID, _, err := idOf(ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // many checks
	if now, _, err := idOf(ts.sock); err != nil || now != otherID {
		t.Fatalf("the other host's socket was replaced: %v", err)
	}
	if err := ts.s.Close(); err != nil {
		t.Fatal(err)
	}
	if now, _, err := idOf(ts.sock); err != nil || now != otherID {
		t.Fatalf("Close removed the other host's socket: %v", err)
	}
	c, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatalf("the other host's socket after Close: %v", err)
	}
	c.Close()
}

// Close removes the host's own socket file.
func TestCloseRemovesOwnSocket(t *testing.T) {
	ts := newTestServer(t, "", false)
	if err := ts.s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(ts.sock); !os.IsNotExist(err) {
		t.Fatalf("the socket after Close: %v", err)
	}
}

// A socket removed again and again does not grow the server's listeners
// (each new one takes the old one's place), and every socket path the
// server listens on is removed at Close while it is its own (p26's
// leftovers: one closed listener more every time; a second path left
// behind).
func TestSocketRemovedRepeatedly(t *testing.T) {
	fastSocketChecks(t)
	ts := newTestServer(t, "", false)
	second := ts.sock + "2"
	if err := ts.s.ListenUnix(second); err != nil {
		t.Fatal(err)
	}
	ts.s.mu.Lock()
	before := len(ts.s.listeners)
	ts.s.mu.Unlock()
	for range 3 {
		old, _, err := idOf(ts.sock)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(ts.sock); err != nil {
			t.Fatal(err)
		}
		waitDial(t, ts.sock)
		if now, _, _ := idOf(ts.sock); now == old {
			t.Fatal("the same socket file after its removal")
		}
	}
	ts.s.mu.Lock()
	after := len(ts.s.listeners)
	ts.s.mu.Unlock()
	if after != before {
		t.Errorf("%d listeners after three removals, %d before", after, before)
	}
	if err := ts.s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{ts.sock, second} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s after Close: %v", p, err)
		}
	}
}
