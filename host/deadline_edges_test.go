package host

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCancelAbandonsStuckProvider: a provider that does not keep
// deadlines (the wasmtime component engine, whose guest can sleep in
// wasmtime's WASI, native code nothing interrupts) is called on a watcher
// goroutine, and the watcher waited for the call's deadline plus
// abandonGrace even when the caller had cancelled: a cancelled call held
// its caller up to 31 s with the default deadline. The watcher now
// abandons the call when the caller cancels, with Cancelled.
func TestCancelAbandonsStuckProvider(t *testing.T) {
	te := newTestHost(t, nil)
	p := &stuckProvider{release: make(chan struct{}), after: make(chan error, 1)}
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	deadline := time.Now().Add(3 * time.Second)
	_, err := te.h.Call(ctx, &abi.ToolCall{Caller: "alice", Tool: "stuck", Deadline: deadline})
	if abi.CodeOf(err) != abi.Cancelled || !strings.Contains(err.Error(), "abandoned") {
		t.Errorf("a call cancelled by its caller after 50 ms: %v, want Cancelled, abandoned", err)
	}
	if time.Now().After(deadline) {
		t.Error("the host answered a cancelled call only at its deadline")
	}
	close(p.release) // the abandoned call resumes: its Env must refuse
	if err := <-p.after; abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("Env of an abandoned call answered %v, want Unavailable", err)
	}
	if v, err := te.call("alice", "quick", nil); v != "quick" || err != nil {
		t.Fatalf("host no longer serves: %v %v", v, err)
	}
}
