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

// TestInferenceRateAndConcurrency: inference.rate bounds the completions of
// all tools together (RateLimited naming the key, with retry_after_ms);
// inference.max_concurrent bounds the requests in flight, a completion past
// it waiting until its call's deadline (Timeout naming the key). Neither
// existed: a tool holding Inference could send the backend (and the bill)
// as many requests as it could make, at once.
func TestInferenceRateAndConcurrency(t *testing.T) {
	var inFlight, most, served atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		served.Add(1)
		_, _ = w.Write([]byte(okAnswer))
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	te := newTestHost(t, func(c *config.Config) {
		c.Inference.URL = srv.URL
		c.Inference.MaxConcurrent = 2
	})
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "complete", Deadline: time.Now().Add(10 * time.Second)})
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for inFlight.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the two completions never reached the backend")
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "complete", Deadline: time.Now().Add(200 * time.Millisecond)})
	if abi.CodeOf(err) != abi.Timeout || !strings.Contains(err.Error(), "inference.max_concurrent") || !strings.Contains(err.Error(), "all 2 requests") {
		t.Fatalf("a third completion while two are in flight: %v; want Timeout naming inference.max_concurrent", err)
	}
	close(release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("completion %d: %v", i, err)
		}
	}
	if m := most.Load(); m != 2 {
		t.Errorf("at most %d requests were in flight at once, want 2", m)
	}

	// inference.rate: 1 a second, burst 1.
	te2 := newTestHost(t, func(c *config.Config) {
		c.Inference.URL = srv.URL
		c.Inference.Rate = &config.Rate{PerSecond: 1, Burst: 1}
	})
	if _, err := te2.call("alice", "complete", nil); err != nil {
		t.Fatalf("first completion: %v", err)
	}
	_, err = te2.call("alice", "complete", nil)
	te3, ok := err.(*abi.ToolError)
	if !ok || te3.Code != abi.RateLimited || !strings.Contains(te3.Message, "inference.rate: 1/s, burst 1") {
		t.Fatalf("second completion within the second: %v; want RateLimited naming inference.rate", err)
	}
	if d, _ := te3.Data.(map[string]any); d == nil || d["limit"] != "inference.rate" || d["retry_after_ms"] == nil {
		t.Errorf("data = %v; want limit and retry_after_ms", te3.Data)
	}
}
