package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/server/jsonrpc"
)

// TestRateLimitedOverSocket: a call refused by a rate limit reaches a
// JSON-RPC client as -32003 with data.code RateLimited and the retry hint
// and limit key in data.details, over the socket, over HTTP and in a
// batch; concurrent clients together get exactly the burst.
func TestRateLimitedOverSocket(t *testing.T) {
	ts := newTestServer(t, "providers:\n  org.test.native:\n    rate: {per_second: 0.001, burst: 12}\n", true)
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, limited := 0, 0
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := jsonrpc.DialUnix(ctx, ts.sock)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			for range 5 {
				var res jsonrpc.ToolsCallResult
				err := c.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": 1}}, &res)
				mu.Lock()
				if err == nil {
					ok++
				} else {
					var je *jsonrpc.Error
					if !errors.As(err, &je) || je.Code != -32003 || je.Data == nil || je.Data.Code != abi.RateLimited {
						t.Errorf("err = %v, want -32003 RateLimited", err)
					} else if d, _ := je.Data.Details.(map[string]any); d["retry_after_ms"] == nil || d["limit"] != `providers["org.test.native"].rate` {
						t.Errorf("details = %#v", je.Data.Details)
					} else {
						limited++
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ok != 12 || limited != 18 {
		t.Fatalf("ok %d, limited %d; want 12 and 18", ok, limited)
	}
	hc := jsonrpc.NewHTTPClient(ts.url+"/rpc", testToken, nil)
	err := hc.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": 1}}, nil)
	if code, ac := rpcCode(err); code != -32003 || ac != abi.RateLimited || !strings.Contains(err.Error(), "retry in") {
		t.Fatalf("over HTTP: %v", err)
	}
}

// TestHTTPRequestsPerTokenBounded: one bearer token runs at most
// server.max_requests_per_token /rpc requests at once; one more is
// answered 429 RateLimited naming the key, without running, while other
// principals' requests are not counted, and a request that ends makes room.
// Before, the HTTP transport had no bound at all: each request in flight
// holds a goroutine and up to max_body_bytes of body, and a token holder
// could keep any number of slow calls open (the socket bounds a uid to
// max_conns_per_uid × 32 calls, MCP a session to max_calls_per_session).
func TestHTTPRequestsPerTokenBounded(t *testing.T) {
	ts := newTestServer(t, "  max_requests_per_token: 2\n", true)
	ctx := context.Background()
	peer := jsonrpc.NewHTTPClient(ts.url+"/rpc", testToken, nil)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := peer.Call(ctx, "tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}, "timeout_ms": 600}, nil)
			if _, ac := rpcCode(err); ac != abi.Timeout {
				t.Errorf("slow call: %v, want Timeout", err)
			}
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for ts.s.tokenRequests("peer#0") < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the two slow calls did not start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	err := peer.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": 1}}, nil)
	if code, ac := rpcCode(err); code != -32003 || ac != abi.RateLimited || !strings.Contains(err.Error(), "server.max_requests_per_token") {
		t.Fatalf("third request of the token: %v, want RateLimited naming server.max_requests_per_token", err)
	}
	// Its data names the key, as the pipeline's rate refusals' data.limit
	// does (it had none: found by p163).
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Data == nil {
		t.Fatalf("third request of the token: %v has no data", err)
	}
	if d, _ := je.Data.Details.(map[string]any); d["limit"] != "server.max_requests_per_token" {
		t.Fatalf("third request's data details %#v, want limit server.max_requests_per_token", je.Data.Details)
	}
	if err := dial(t, ts).Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": 1}}, nil); err != nil {
		t.Fatalf("a socket request meanwhile: %v", err)
	}
	wg.Wait()
	if err := peer.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": 1}}, nil); err != nil {
		t.Fatalf("the token's request after its requests ended: %v", err)
	}
	if n := ts.s.tokenRequests("peer#0"); n != 0 {
		t.Fatalf("%d requests counted after all ended", n)
	}
	cfg, err := config.Parse([]byte("server:\n  max_requests_per_token: -1\n"), "host.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(cfg); err == nil || !strings.Contains(err.Error(), "host.yaml:2") || !strings.Contains(err.Error(), "server.max_requests_per_token") {
		t.Fatalf("negative max_requests_per_token: %v", err)
	}
}

// tokenRequests is how many /rpc requests of token name run now.
func (s *Server) tokenRequests(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokenReqs[name]
}

// wedged is a non-native provider whose calls never return on their own
// (a hung worker that ignores its deadline).
type wedged struct{ release chan struct{} }

func (p *wedged) Describe() *abi.ToolRegister {
	return &abi.ToolRegister{Provider: abi.ProviderInfo{ID: "org.probe.wedged", Runtime: abi.RuntimePython},
		Tools: []abi.ToolDef{{Name: "wedged", Version: "1.0.0"}}}
}
func (p *wedged) Call(context.Context, *abi.ToolCall, abi.Env) (any, error) {
	<-p.release
	return "late", nil
}
func (p *wedged) Close() error { return nil }

// TestAbandonedCallsFreeTheirSlots: a connection's 32 slots taken by
// calls of a provider that never returns are freed when the host abandons
// those calls (deadline + 1 s): the connection's next request is answered,
// not held until the provider returns.
func TestAbandonedCallsFreeTheirSlots(t *testing.T) {
	ts := newTestServer(t, "", false)
	w := &wedged{release: make(chan struct{})}
	defer close(w.release)
	if err := ts.h.AddProvider(context.Background(), w, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	c := dial(t, ts)
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := c.Call(ctx, "tools/call", map[string]any{"name": "wedged", "arguments": map[string]any{}, "timeout_ms": 100}, nil)
			if _, ac := rpcCode(err); ac != abi.Timeout {
				t.Errorf("wedged call: %v, want Timeout", err)
			}
		}()
	}
	start := time.Now()
	wg.Wait()
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("40 abandoned calls on one connection took %v", d)
	}
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := c.Call(cctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": 1}}, nil); err != nil {
		t.Fatalf("a call after the abandoned ones: %v", err)
	}
}

// TestRateLimitedInBatch: the calls of one batch, run 8 at a time,
// share the buckets exactly: a provider burst of 12 admits 12 of 20, and
// each of the 8 others is its own RateLimited answer with its id and hint.
func TestRateLimitedInBatch(t *testing.T) {
	ts := newTestServer(t, "providers:\n  org.test.native:\n    rate: {per_second: 0.001, burst: 12}\n", false)
	var items []string
	for i := range 20 {
		items = append(items, fmt.Sprintf(`{"jsonrpc":"2.0","method":"tools/call","id":%d,"params":{"name":"echo","arguments":{"value":%d}}}`, i, i))
	}
	m := rawExchange(t, ts, "["+strings.Join(items, ",")+"]")
	batch := m["batch"].([]any)
	if len(batch) != 20 {
		t.Fatalf("%d answers, want 20", len(batch))
	}
	ok, limited := 0, 0
	ids := map[float64]bool{}
	for _, r := range batch {
		r := r.(map[string]any)
		ids[r["id"].(float64)] = true
		if r["error"] == nil {
			ok++
			continue
		}
		e := r["error"].(map[string]any)
		d, _ := e["data"].(map[string]any)
		det, _ := d["details"].(map[string]any)
		if e["code"] != -32003.0 || d["code"] != "RateLimited" || det["retry_after_ms"] == nil {
			t.Fatalf("answer %v", r)
		}
		limited++
	}
	if ok != 12 || limited != 8 || len(ids) != 20 {
		t.Fatalf("ok %d, limited %d, ids %d; want 12, 8, 20", ok, limited, len(ids))
	}
}
