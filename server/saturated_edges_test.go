//go:build unix

package server

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// TestSaturatedConnectionHangupCancelsCalls: a socket peer that had sent
// more requests than a connection runs at once (32) and then hung up left
// its 32 calls running to their deadlines for no one (holding workers and
// rate-limit-free slots), and then ran the requests it had queued: the
// read loop, blocked waiting for a free slot, never saw the hangup that
// cancels a connection's calls (found by p117: 40 pipelined calls of slow,
// the peer gone, 32 still running 10 s later). The hangup is seen while the
// loop waits, and the calls are cancelled.
func TestSaturatedConnectionHangupCancelsCalls(t *testing.T) {
	ts := newTestServer(t, "", false)
	conn, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow"}}`+"\n", i+1)
	}
	if _, err := conn.Write([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	ts.waitSlow(t, maxConcurrentPerConn)
	conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	for ts.slow.Load() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls of a peer gone 5 s ago still run", ts.slow.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
