package host

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// TestInferenceWaitSpendsNoRate: a completion that waited for a place
// among inference.max_concurrent until its deadline (or its caller's
// cancel) never reached the backend, yet it had spent a token of
// inference.rate: with a slow backend, the completions queued behind it
// emptied the bucket, and once the backend was free again the next ones
// were RateLimited though it had been sent one request. A completion that
// leaves without a place gives its token back.
func TestInferenceWaitSpendsNoRate(t *testing.T) {
	var served atomic.Int32
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
		_, _ = w.Write([]byte(okAnswer))
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(free)
	te := newTestHost(t, func(c *config.Config) {
		c.Inference.URL = srv.URL
		c.Inference.MaxConcurrent = 1
		c.Inference.Rate = &config.Rate{PerSecond: 0.001, Burst: 4}
	})
	first := make(chan error, 1)
	go func() {
		_, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "complete", Deadline: time.Now().Add(30 * time.Second)})
		first <- err
	}()
	for end := time.Now().Add(30 * time.Second); served.Load() < 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the first completion never reached the backend")
		}
	}
	// Two wait for the backend's one place until their deadline, a third
	// until its caller cancels: none is sent.
	var wg sync.WaitGroup
	codes := make([]abi.ErrorCode, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if i == 2 {
				time.AfterFunc(150*time.Millisecond, cancel)
			}
			_, err := te.h.Call(ctx, &abi.ToolCall{Caller: "alice", Tool: "complete", Deadline: time.Now().Add(300 * time.Millisecond)})
			codes[i] = abi.CodeOf(err)
		}()
	}
	wg.Wait()
	if codes[0] != abi.Timeout || codes[1] != abi.Timeout || codes[2] != abi.Cancelled {
		t.Fatalf("completions waiting for the one place: %v; want Timeout, Timeout, Cancelled", codes)
	}
	free()
	if err := <-first; err != nil {
		t.Fatalf("first completion: %v", err)
	}
	if n := served.Load(); n != 1 {
		t.Fatalf("the backend got %d requests, want 1", n)
	}
	// Burst 4, one request sent: three more completions are within the rate.
	for i := range 3 {
		if _, err := te.call("alice", "complete", nil); err != nil {
			t.Fatalf("completion %d of the 3 tokens left after one request: %v (the waits spent inference.rate tokens)", i+1, err)
		}
	}
	if _, err := te.call("alice", "complete", nil); abi.CodeOf(err) != abi.RateLimited {
		t.Fatalf("a fifth completion past burst 4: %v; want RateLimited", err)
	}
}

// TestCloseStopsCompletions: a tool waiting on the inference backend held
// the host's Close for its whole drain (5 s) and went on after Close
// returned, until inference.timeout (60 s); one waiting for a place among
// inference.max_concurrent did too. Close stops both at once: the calls
// end Unavailable saying the host is closing, and Close does not wait.
func TestCloseStopsCompletions(t *testing.T) {
	var served atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
		_, _ = w.Write([]byte(okAnswer))
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	te := newTestHost(t, func(c *config.Config) {
		c.Inference.URL = srv.URL
		c.Inference.MaxConcurrent = 1
	})
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "complete", Deadline: time.Now().Add(60 * time.Second)})
			errs <- err
		}()
	}
	for end := time.Now().Add(30 * time.Second); served.Load() < 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("no completion reached the backend")
		}
	}
	time.Sleep(50 * time.Millisecond) // the second waits for the one place
	start := time.Now()
	if err := te.h.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v with completions in flight", d)
	}
	for range 2 {
		select {
		case err := <-errs:
			if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "closing") {
				t.Errorf("a completion in flight at Close: %v; want Unavailable, the host is closing", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a completion went on after Close")
		}
	}
}
