package native

import (
	"strings"
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

// A function of OnClose that panicked (or a nil one, called) ended Close
// there: the functions after it never ran, their resources leaked, and
// the panic reached the host (which reported only it). Each function now
// runs; a panic is an error naming the function's place and the panic,
// and a nil function is not added.
func TestOnClosePanicRunsTheRest(t *testing.T) {
	p := New(abi.ProviderInfo{ID: "org.test.onclose"})
	ran := 0
	p.OnClose(func() error { ran++; return nil })
	p.OnClose(nil)
	p.OnClose(func() error { panic("hook boom") })
	p.OnClose(func() error { ran++; return nil })
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Close panicked: %v", r)
			}
		}()
		err = p.Close()
	}()
	if ran != 2 {
		t.Fatalf("%d of the 2 other functions ran", ran)
	}
	if err == nil || !strings.Contains(err.Error(), "hook boom") || !strings.Contains(err.Error(), "org.test.onclose") {
		t.Fatalf("Close: %v, want an error naming the provider and the panic", err)
	}
	if strings.Contains(err.Error(), "nil pointer") {
		t.Fatalf("Close: %v: the nil function was called", err)
	}
}
