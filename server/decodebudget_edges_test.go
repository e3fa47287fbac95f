package server

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestLargeMessagesShareDecodeBudget: each message was bounded in what it
// may decode to, their sum was not (a probe: 16 concurrent 4 MiB messages
// of nested arrays on one socket, +1.09 GB of heap). Large messages now
// share limits.max_decode_bytes while they are handled: one that does not
// fit waits until another is answered, and small ones never wait.
func TestLargeMessagesShareDecodeBudget(t *testing.T) {
	ts := newTestServer(t, "limits:\n  max_decode_bytes: 150000\n", false)
	pad := strings.Repeat("x", 100_000)
	first, cancelFirst := context.WithCancel(context.Background())
	defer cancelFirst()
	slowDone := make(chan error, 1)
	go func() {
		slowDone <- dial(t, ts).Call(first, "tools/call", map[string]any{"name": "slow", "arguments": map[string]any{"pad": pad}}, nil)
	}()
	ts.waitSlow(t, 1)

	echoDone := make(chan error, 1)
	go func() {
		var out any
		echoDone <- dial(t, ts).Call(context.Background(), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": pad}}, &out)
	}()
	// A small call goes through while the large one waits.
	var out any
	if err := dial(t, ts).Call(context.Background(), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": "small"}}, &out); err != nil {
		t.Fatalf("a small call while the budget is held: %v", err)
	}
	select {
	case err := <-echoDone:
		t.Fatalf("a second large message was handled while the first held the budget: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	cancelFirst()
	<-slowDone
	select {
	case err := <-echoDone:
		if err != nil {
			t.Fatalf("the waiting large message, once the first was answered: %v", err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("the waiting large message was not handled after the first was answered")
	}
}
