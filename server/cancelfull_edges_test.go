package server

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// TestCancelReachesFullConnection: a socket connection runs 32 requests
// at once, and while all 32 ran the server read nothing more from it, a
// notifications/cancelled included: a client could not cancel any of the
// calls that filled its connection (they ran on to their end or deadline,
// the slot of each held all the while), the one time it most needs to.
// A cancel is now read and applied while every slot is taken.
func TestCancelReachesFullConnection(t *testing.T) {
	c := fillConnection(t)
	if _, err := c.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r0"}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(8 * time.Second)) // slow returns by itself after 10 s
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer to the cancelled request while the connection's %d slots were taken: %v", maxConcurrentPerConn, err)
	}
	if !strings.Contains(line, `"id":"r0"`) || !strings.Contains(line, "Cancelled") {
		t.Fatalf("first answer %s, want r0 Cancelled", line)
	}
}

// fillConnection connects to a new test server and takes every slot of
// the connection with a call of slow (ids r0 … r31), running when it
// returns.
func fillConnection(t *testing.T) net.Conn {
	t.Helper()
	ts := newTestServer(t, "", false)
	c, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var b strings.Builder
	for i := range maxConcurrentPerConn {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":"r%d","method":"tools/call","params":{"name":"slow"}}`+"\n", i)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	ts.waitSlow(t, maxConcurrentPerConn)
	return c
}
