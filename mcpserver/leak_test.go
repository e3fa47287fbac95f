package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestLeakSessions opens and closes many MCP sessions (in memory and
// streamable HTTP), with calls, some cancelled mid-call by the client, on
// one server that keeps running: the sessions must not leave goroutines
// or tracked calls behind.
func TestLeakSessions(t *testing.T) {
	h, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	slow := native.New(abi.ProviderInfo{ID: "org.test.slow", Name: "slow", Runtime: abi.RuntimeNative})
	slow.MustRegister(abi.ToolDef{Name: "slow", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, _ any, _ abi.Env) (any, error) {
			select {
			case <-time.After(10 * time.Second):
				return "late", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	if err := h.AddProvider(context.Background(), slow, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	waitExported(t, s, "slow")
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	ctx := context.Background()
	cycle := func() {
		// in memory: a call, a cancelled slow call, then close.
		ct, st := mcpsdk.NewInMemoryTransports()
		ss, err := s.MCP().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "echo", Arguments: map[string]any{"value": "x"}}); err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
		_, _ = cs.CallTool(cctx, &mcpsdk.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		cancel()
		_ = cs.Close()
		_ = ss.Wait()
		// HTTP: the same, the session ended by the client (DELETE).
		hs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t"}, nil).Connect(ctx,
			&mcpsdk.StreamableClientTransport{Endpoint: srv.URL + Path}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := hs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "echo", Arguments: map[string]any{"value": "x"}}); err != nil {
			t.Fatal(err)
		}
		cctx, cancel = context.WithTimeout(ctx, 30*time.Millisecond)
		_, _ = hs.CallTool(cctx, &mcpsdk.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		cancel()
		// Before the DELETE fix each of these took 5 s (the client's
		// wait), the server's DELETE waiting for the abandoned call.
		_ = hs.Close()
	}
	cycle()
	http.DefaultClient.CloseIdleConnections()
	srv.CloseClientConnections()
	before := testutil.SettleGoroutines(0, time.Second)
	n := 20
	if testing.Short() {
		n = 2
	}
	for i := 0; i < n; i++ {
		cycle()
	}
	http.DefaultClient.CloseIdleConnections()
	srv.CloseClientConnections()
	after := testutil.SettleGoroutines(before+3, 30*time.Second) // the bound checked below
	s.httpMu.Lock()
	tracked := len(s.httpCalls)
	s.httpMu.Unlock()
	s.sessMu.Lock() // sessCalls is sessMu's (sessions.go)
	tracked += len(s.sessCalls)
	s.sessMu.Unlock()
	t.Logf("goroutines %d -> %d, tracked HTTP calls %d", before, after, tracked)
	if after > before+3 || tracked != 0 {
		t.Errorf("after %d sessions: goroutines %d -> %d, tracked HTTP calls %d\n%s", n, before, after, tracked, testutil.GoroutineDump())
	}
}

// TestLeakDeleteCancelsCalls: a streamable-HTTP client that ends its
// session (DELETE) while a call of it runs can get no answer any more; the
// call must be cancelled, not run on to its deadline holding the DELETE
// (the go-sdk closes a session only once its requests are done). Before
// the fix the tool ran its full 20 s and the DELETE waited for it.
func TestLeakDeleteCancelsCalls(t *testing.T) {
	h, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	started := make(chan struct{}, 1)
	stopped := make(chan time.Time, 1)
	slow := native.New(abi.ProviderInfo{ID: "org.test.slow", Name: "slow", Runtime: abi.RuntimeNative})
	slow.MustRegister(abi.ToolDef{Name: "slow", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, _ any, _ abi.Env) (any, error) {
			started <- struct{}{}
			select {
			case <-time.After(20 * time.Second):
				stopped <- time.Now()
				return "late", nil
			case <-ctx.Done():
				stopped <- time.Now()
				return nil, ctx.Err()
			}
		})
	if err := h.AddProvider(context.Background(), slow, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	waitExported(t, s, "slow")
	var deleteTook atomic.Int64
	hd := s.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		hd.ServeHTTP(w, r)
		if r.Method == http.MethodDelete {
			deleteTook.Store(int64(time.Since(t0)))
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	hs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t"}, nil).Connect(ctx,
		&mcpsdk.StreamableClientTransport{Endpoint: srv.URL + Path, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
	go func() { _, _ = hs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "slow", Arguments: map[string]any{}}) }()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the slow tool did not start")
	}
	// The go-sdk's client sends its DELETE only once its calls are done:
	// a client that gives up on them sends it at once.
	closed := time.Now()
	go func() {
		req, _ := http.NewRequest(http.MethodDelete, srv.URL+Path, nil)
		req.Header.Set(sessionHeader, hs.ID())
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case at := <-stopped:
		if d := at.Sub(closed); d > 2*time.Second {
			t.Errorf("the call ended %v after the session was deleted, not cancelled by it", d)
		}
	case <-time.After(25 * time.Second):
		t.Fatal("the call never ended")
	}
	testutil.Eventually(t, "DELETE answered", func() bool { return deleteTook.Load() != 0 })
	if d := time.Duration(deleteTook.Load()); d > 2*time.Second {
		t.Errorf("DELETE took %v: it waited for the session's call", d)
	}
}

// headerCheck calls check as the answer's header goes out.
type headerCheck struct {
	http.ResponseWriter
	check func(h http.Header)
	done  bool
}

func (w *headerCheck) WriteHeader(code int) {
	if !w.done {
		w.done = true
		w.check(w.Header())
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *headerCheck) Write(p []byte) (int, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

func (w *headerCheck) Flush() {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

// TestSessionKnownBeforeInitializeAnswer: the server noted a session
// (its user, for DELETE and max_sessions) only after the answer to its
// initialize had gone out. A client that sent DELETE at once could be
// served first under load: its calls were not cancelled and ran to their
// deadline (TestLeakDeleteCancelsCalls failed so once, the call ending
// 20 s after the DELETE). The session must be known by the time its id
// reaches the client.
func TestSessionKnownBeforeInitializeAnswer(t *testing.T) {
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	hd := s.Handler()
	var checked, known atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hw := &headerCheck{ResponseWriter: w, check: func(h http.Header) {
			id := h.Get(sessionHeader)
			if id == "" || r.Header.Get(sessionHeader) != "" {
				return
			}
			checked.Add(1)
			s.sessMu.Lock()
			if s.sessUse[id] != nil {
				known.Add(1)
			}
			s.sessMu.Unlock()
		}}
		hd.ServeHTTP(hw, r)
	}))
	defer srv.Close()
	for i := 0; i < 3; i++ {
		cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t"}, nil).Connect(context.Background(),
			&mcpsdk.StreamableClientTransport{Endpoint: srv.URL + Path, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = cs.Close()
	}
	if checked.Load() != 3 || known.Load() != 3 {
		t.Fatalf("%d of %d initialize answers went out before their session was noted", checked.Load()-known.Load(), checked.Load())
	}
}
