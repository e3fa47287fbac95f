package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// edgeHTTPServer is a go-sdk streamable-HTTP server with tools "search"
// and "slow" (which waits for its context).
func edgeHTTPServer() *mcpsdk.Server {
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "remote", Version: "2.0.0"}, nil)
	s.AddTool(&mcpsdk.Tool{Name: "search", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "found"}}}, nil
		})
	s.AddTool(&mcpsdk.Tool{Name: "slow", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s.AddTool(&mcpsdk.Tool{Name: "wait3", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			select {
			case <-time.After(3 * time.Second):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "waited"}}}, nil
		})
	return s
}

// TestHTTPRedirectKeepsToken: a URL server that redirects the bridge
// to another host does not get the bridge's bearer token sent there, and
// the bridge does not talk to a host its tools' Network grant does not
// name.
func TestHTTPRedirectKeepsToken(t *testing.T) {
	var leaked atomic.Value
	leaked.Store("")
	s := edgeHTTPServer()
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization"); a != "" {
			leaked.Store(a)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(other.Close)
	// The same listener's port, named "localhost": another host to the
	// bridge (and to a Network grant).
	target := strings.Replace(other.URL, "127.0.0.1", "localhost", 1) + "/mcp"
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(front.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: front.URL + "/mcp", Token: "secret", ConnectTimeout: 3 * time.Second}})
	t.Logf("Start: %v; tools %v", err, rec.toolNames("org.aios.mcp.r"))
	if got := leaked.Load().(string); got != "" {
		t.Fatalf("the redirect target got Authorization %q", got)
	}
	if got := rec.toolNames("org.aios.mcp.r"); len(got) != 0 {
		t.Fatalf("tools served by another host than the URL's: %v", got)
	}
	if err == nil || !strings.Contains(err.Error(), "redirect") {
		t.Fatalf("Start error = %v", err)
	}
}

// TestHTTPSessionExpiry: when the server forgets the session (404,
// MCP: the client MUST start a new session), the bridge initializes a new
// one and later calls succeed.
func TestHTTPSessionExpiry(t *testing.T) {
	s := edgeHTTPServer()
	var mu sync.Mutex
	newHandler := func() http.Handler {
		return mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil)
	}
	h := newHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hh := h
		mu.Unlock()
		hh.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: srv.URL + "/mcp", ConnectTimeout: 3 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.r")
	if _, err := call(t, p, "mcp-r-search", nil, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	h = newHandler() // a restarted server: every session is gone
	mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; ; i++ {
		v, err := call(t, p, "mcp-r-search", nil, 3*time.Second)
		if err == nil {
			t.Logf("call %d after the expiry: %v", i, v)
			if i > 0 {
				t.Errorf("%d calls failed before the bridge re-initialized", i)
			}
			return
		}
		t.Logf("call %d after the expiry: %v", i, err)
		if time.Now().After(deadline) {
			t.Fatalf("no call succeeded after the session expired: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestHTTPStreamCut: an SSE response cut before the call's answer
// fails the call soon, not at its deadline.
func TestHTTPStreamCut(t *testing.T) {
	s := edgeHTTPServer()
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil)
	var cut atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cut.Load() && r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") != "" {
			b, _ := io.ReadAll(r.Body)
			if strings.Contains(string(b), `"tools/call"`) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				w.Write([]byte("event: message\ndata: {\"jsonrpc\":"))
				w.(http.Flusher).Flush()
				panic(http.ErrAbortHandler) // cut the connection
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: srv.URL + "/mcp", ConnectTimeout: 3 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	cut.Store(true)
	start := time.Now()
	_, err = call(t, rec.provider("org.aios.mcp.r"), "mcp-r-search", nil, 10*time.Second)
	t.Logf("after %v: %v", time.Since(start), err)
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("after %v: %v", time.Since(start), err)
	}
}

// TestHTTPRedirectSameOrigin: a redirect within the url's origin is
// followed, with the token.
func TestHTTPRedirectSameOrigin(t *testing.T) {
	s := edgeHTTPServer()
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
			return
		}
		if r.Header.Get("Authorization") != "Bearer secret" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: srv.URL + "/old", Token: "secret", ConnectTimeout: 3 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, rec.provider("org.aios.mcp.r"), "mcp-r-search", nil, 3*time.Second); err != nil {
		t.Fatal(err)
	}
}

// TestHTTPDeadlineCancels: over HTTP, a call whose deadline passes
// answers Timeout at its deadline and the server's handler is cancelled.
func TestHTTPDeadlineCancels(t *testing.T) {
	ended := make(chan error, 1)
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "remote", Version: "2.0.0"}, nil)
	s.AddTool(&mcpsdk.Tool{Name: "slow", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			select {
			case <-ctx.Done():
				ended <- ctx.Err()
			case <-time.After(20 * time.Second):
				ended <- nil
			}
			return nil, ctx.Err()
		})
	srv := httptest.NewServer(mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: srv.URL + "/mcp", ConnectTimeout: 3 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = call(t, rec.provider("org.aios.mcp.r"), "mcp-r-slow", nil, 300*time.Millisecond)
	if d := time.Since(start); err == nil || !strings.Contains(err.Error(), "Timeout") || d > 2*time.Second {
		t.Fatalf("after %v: %v", d, err)
	}
	select {
	case err := <-ended:
		if err == nil {
			t.Fatal("the server's handler ran to its end")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server's handler was not cancelled")
	}
}

// TestHTTPNotMCP: a URL that answers HTML (a login page, a captive
// portal) fails the connection with an error that says what came back.
func TestHTTPNotMCP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>Please log in</body></html>"))
	}))
	t.Cleanup(srv.Close)
	_, _, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: srv.URL + "/mcp", ConnectTimeout: 2 * time.Second}})
	t.Logf("Start: %v", err)
	if err == nil || !strings.Contains(err.Error(), "text/html") {
		t.Fatalf("Start error = %v", err)
	}
}

// TestURLSecretsNotShown: a URL server's password or query (where
// hosted servers' API keys often are) is not shown in the provider's
// description, logs or errors, which callers see.
func TestURLSecretsNotShown(t *testing.T) {
	s := edgeHTTPServer()
	srv := httptest.NewServer(mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	u := strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1) + "/mcp?api_key=sekrit"
	b, rec, logs, err := startBridge(t, map[string]ServerConfig{"r": {URL: u, ConnectTimeout: 3 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.r")
	if _, err := call(t, p, "mcp-r-search", nil, 3*time.Second); err != nil {
		t.Fatal(err) // the URL as configured is used
	}
	b.Close()
	srv.Close()
	_, err = call(t, p, "mcp-r-search", nil, 3*time.Second)
	all := p.Describe().Provider.Description + " " + logs.String() + " " + fmt.Sprint(err)
	for _, secret := range []string{"hunter2", "sekrit"} {
		if strings.Contains(all, secret) {
			t.Errorf("%s shown: %s", secret, all)
		}
	}
}

// TestHTTPGetStreamEnds: a server whose standalone GET stream ends at
// once (or fails) still serves calls, and the bridge does not reconnect in
// a loop.
func TestHTTPGetStreamEnds(t *testing.T) {
	for _, mode := range []string{"empty", "500"} {
		t.Run(mode, func(t *testing.T) {
			s := edgeHTTPServer()
			h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil)
			var gets, inits atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					gets.Add(1)
					if mode == "500" {
						http.Error(w, "boom", http.StatusInternalServerError)
						return
					}
					w.Header().Set("Content-Type", "text/event-stream")
					w.WriteHeader(http.StatusOK)
					return
				}
				if r.Header.Get("Mcp-Session-Id") == "" {
					inits.Add(1)
				}
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			b, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: srv.URL + "/mcp", ConnectTimeout: 3 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			if _, err := call(t, rec.provider("org.aios.mcp.r"), "mcp-r-wait3", nil, 10*time.Second); err != nil {
				t.Errorf("a 3 s call: %v", err)
			}
			time.Sleep(1500 * time.Millisecond)
			for i := range 3 {
				if _, err := call(t, rec.provider("org.aios.mcp.r"), "mcp-r-search", nil, 3*time.Second); err != nil {
					t.Errorf("call %d: %v", i, err)
				}
			}
			t.Logf("%d GETs, %d sessions in 1.5 s", gets.Load(), inits.Load())
			if inits.Load() > 5 {
				t.Errorf("%d sessions in 1.5 s", inits.Load())
			}
		})
	}
}

// TestHTTPGetStreamReopened: after the server closed the standalone
// stream, its list_changed still reaches the bridge on the reopened one.
func TestHTTPGetStreamReopened(t *testing.T) {
	s := edgeHTTPServer()
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s }, nil)
	var gets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && gets.Add(1) == 1 {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			return // closed at once
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	b, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: srv.URL + "/mcp", ConnectTimeout: 3 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	deadline := time.Now().Add(5 * time.Second)
	for gets.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the stream was not reopened")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	s.AddTool(&mcpsdk.Tool{Name: "more", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
			return &mcpsdk.CallToolResult{}, nil
		})
	for !contains(rec.toolNames("org.aios.mcp.r"), "mcp-r-more") {
		if time.Now().After(deadline) {
			t.Fatalf("list_changed not seen: %v", rec.toolNames("org.aios.mcp.r"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
