package native

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// A function added by OnClose once the provider was closed (a resource
// opened lazily by a handler that was still running when the host
// removed the provider) never ran: the resource leaked, without a word.
// Added while Close ran, between its flag and its copy of the list, it
// ran or not by chance. It now runs once, whenever it is added: by Close,
// or at once when the provider is already closed.
func TestOnCloseAfterCloseRuns(t *testing.T) {
	p := New(abi.ProviderInfo{ID: "org.test.onclose"})
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	ran := 0
	p.OnClose(func() error { ran++; return nil })
	if ran != 1 {
		t.Fatalf("a function added after Close ran %d times, want once", ran)
	}
	if err := p.Close(); err != nil || ran != 1 {
		t.Fatalf("second Close: %v, the function ran %d times", err, ran)
	}

	// Added while another goroutine closes: each runs exactly once.
	for range 50 {
		p := New(abi.ProviderInfo{ID: "org.test.onclose"})
		const n = 8
		var counts [n]atomic.Int32
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p.OnClose(func() error { counts[i].Add(1); return nil })
			}()
		}
		wg.Add(1)
		go func() { defer wg.Done(); _ = p.Close() }()
		wg.Wait()
		for i := range n {
			if c := counts[i].Load(); c != 1 {
				t.Fatalf("function %d added while closing ran %d times, want once", i, c)
			}
		}
	}
}
