package server

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestHangUpWithEveryCallSlotTakenCancelsCalls: a socket peer that sent
// more requests than a connection runs at once (32) and then hung up had
// its calls run on to their end (10 s for slow), holding the provider:
// the reader waited for a free slot for the 33rd request and so did not
// see the hang-up, which only the read loop turns into cancelling the
// connection's calls (found by p120). Now the reader watches the peer
// while it waits for a slot, and the calls are cancelled when it goes.
func TestHangUpWithEveryCallSlotTakenCancelsCalls(t *testing.T) {
	ts := newTestServer(t, "", false)
	ended := make(chan host.CallStats, 2*maxConcurrentPerConn)
	defer ts.h.OnCall(func(st host.CallStats) { ended <- st })()
	c, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	for i := range maxConcurrentPerConn + 1 {
		if _, err := fmt.Fprintf(c, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow"}}`+"\n", i); err != nil {
			t.Fatal(err)
		}
	}
	ts.waitSlow(t, maxConcurrentPerConn)
	c.Close()
	// slow returns "late" (OK) after 10 s unless cancelled; every call
	// that ran must end Cancelled, long before that.
	for i := range maxConcurrentPerConn {
		select {
		case st := <-ended:
			if st.Code != abi.Cancelled {
				t.Fatalf("call %d of a peer that hung up ended with %q, want Cancelled (it ran to its end)", i, st.Code)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("only %d of %d calls ended within 30 s of their peer hanging up", i, maxConcurrentPerConn)
		}
	}
}
