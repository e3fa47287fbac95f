package busy

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCancelledWaitNamesTheCall: a call whose caller cancelled it
// while it waited for a full WASM or component pool was answered (and
// audited) "Cancelled: context canceled", naming neither the tool, nor
// the provider, nor that it never ran for want of an instance (the JS
// runtime's says so). The error names them and the setting; one whose
// context's own deadline ended the wait is a Timeout saying so.
func TestCancelledWaitNamesTheCall(t *testing.T) {
	b := New(1)
	if !b.TryAcquire() {
		t.Fatal("TryAcquire")
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	_, err := b.Acquire(ctx, time.Now().Add(30*time.Second), false, "org.x", "echo", "runtimes.wasm.pool_size")
	if abi.CodeOf(err) != abi.Cancelled {
		t.Fatalf("cancelled wait: %v, want Cancelled", err)
	}
	for _, want := range []string{"echo", "was cancelled", "all 1 instances of org.x were busy", "runtimes.wasm.pool_size"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("cancelled wait: %q does not say %q", err, want)
		}
	}
	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer dcancel()
	_, err = b.Acquire(dctx, time.Now().Add(30*time.Second), false, "org.x", "echo", "runtimes.wasm.pool_size")
	if abi.CodeOf(err) != abi.Timeout || !strings.Contains(err.Error(), "echo reached its deadline while all 1 instances of org.x were busy") {
		t.Fatalf("wait ended by the context's deadline: %v", err)
	}
	if b.Busy() != 1 || b.waiters.Load() != 0 {
		t.Fatalf("busy %d, waiters %d after the waits left", b.Busy(), b.waiters.Load())
	}
}
