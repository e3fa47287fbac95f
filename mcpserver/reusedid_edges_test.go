package mcpserver

import (
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestStdioReusedIDAnswered: a request (not in a batch) whose id is that
// of a request still running is answered with -32600 naming the id; the
// go-sdk dropped it without a word, and its client waited for ever. The
// running request is answered as before.
func TestStdioReusedIDAnswered(t *testing.T) {
	h, s := newTestHost(t, "")
	started := make(chan struct{}, 1)
	addSlowTool(t, h, started)
	waitExported(t, s, "slow")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	ss.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"org.aios/timeout_ms":60000}}}`)
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool did not start")
	}
	ss.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if l := ss.mustRead(); errorsOf(t, l)["5"] != jsonrpc.CodeInvalidRequest || !strings.Contains(l, "id 5 of an earlier request is still in flight") {
		t.Fatalf("ping reusing id 5: %s", l)
	}
	ss.ping(6)
	// Once its request has ended, the id may be used again.
	ss.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
	for deadline := time.Now().Add(5 * time.Second); ; {
		ss.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
		l := ss.mustRead()
		if l == `{"jsonrpc":"2.0","id":5,"result":{}}` {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("id 5 still refused after its request was cancelled: %s", l)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
