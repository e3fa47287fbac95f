package mcpserver

import (
	"bufio"
	"context"
	"fmt"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// waitGETs waits until session sid has active GET streams served by the
// go-sdk and parked ones as given; false after 5 s.
func waitGETs(s *Server, sid string, active, parked int) bool {
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		s.getMu.Lock()
		a, p := len(s.gets[sid]), len(s.parked[sid])
		s.getMu.Unlock()
		if a == active && p == parked {
			return true
		}
	}
	return false
}

// TestParkedStreamResumes: a second GET of a session took the
// stream over and the first was parked — open, silent — but when the
// second's client then closed it (a client that keeps two streams open
// and lets one go, a probe, a reconnect that gave up), the first stayed
// parked: the session had an open GET stream that got nothing, and the
// client, its stream open, had no reason to reopen it and heard no
// tools/list_changed for the rest of the session (before the takeover,
// the first stream kept the messages). The newest parked stream now takes
// the messages again when the stream serving them ends.
func TestParkedStreamResumes(t *testing.T) {
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	base := newHTTPTestServer(t, s)
	sid := initSession(t, base)
	first := openGET(t, base, sid)
	defer first.Body.Close()
	second := openGET(t, base, sid)
	if first.StatusCode != 200 || second.StatusCode != 200 {
		t.Fatalf("GETs: %d, %d", first.StatusCode, second.StatusCode)
	}
	if !waitGETs(s, sid, 1, 1) {
		t.Fatal("the first GET was not parked beside the second")
	}
	second.Body.Close()
	if !waitGETs(s, sid, 1, 0) {
		t.Fatal("the second GET stream ended and the first is still parked: the session's messages reach no stream")
	}
	p := native.New(abi.ProviderInfo{ID: "org.test.more"})
	p.MustRegister(abi.ToolDef{Name: "more", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "x", nil })
	if err := s.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(first.Body)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "notifications/tools/list_changed") {
				got <- sc.Text()
				return
			}
		}
		got <- ""
	}()
	select {
	case l := <-got:
		if l == "" {
			t.Fatal("the first GET stream ended without tools/list_changed")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no tools/list_changed on the first GET stream, the session's only one")
	}
}

// TestBatchUnknownMethodsBounded: serveBatch serves a batch again
// once per method the go-sdk does not know, and the go-sdk decodes every
// member of it each time (about 64 KB each), so the batch limit (100,
// maxBatch) no longer bounded a POST's cost: 100 requests of 100 unknown
// methods were served 100 times — 5050 member decodes, 320 MB allocated
// and half a second of CPU for one 5 KB POST, 50 times a batch of 100
// pings. Past maxUnknownMethods unknown methods the batch is refused as a
// whole (none of it was served), naming the limit; fewer are answered
// -32601 each as before.
func TestBatchUnknownMethodsBounded(t *testing.T) {
	_, base := anonHTTP(t, "")
	sid := initSessionVersion(t, base, "2025-03-26")
	h := map[string]string{sessionHeader: sid, versionHeader: "2025-03-26"}
	batch := func(n int) string {
		parts := []string{`{"jsonrpc":"2.0","id":"p","method":"ping"}`}
		for i := 0; i < n; i++ {
			parts = append(parts, `{"jsonrpc":"2.0","id":`+itoa(i+1)+`,"method":"nope/`+itoa(i)+`"}`)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	a := post(t, base, batch(99), h)
	if a.status != 400 {
		t.Fatalf("a batch of 99 unknown methods: %d %.300s, want 400", a.status, a.body)
	}
	if code, _ := a.errorCode(t); code != jsonrpc.CodeInvalidRequest || !strings.Contains(a.body, "more than "+itoa(maxUnknownMethods)) {
		t.Errorf("a batch of 99 unknown methods: %d %.300s, want 400 -32600 naming the limit", a.status, a.body)
	}
	a = post(t, base, batch(maxUnknownMethods), h)
	if a.status != 200 || strings.Count(a.body, "-32601") != maxUnknownMethods || !strings.Contains(a.body, `"id":"p","result"`) {
		t.Errorf("a batch of %d unknown methods and a ping: %d %.500s", maxUnknownMethods, a.status, a.body)
	}
}

// TestParkedStreamEndsOnClose: a parked GET stream (open, silent)
// ends when the server closes, so an HTTP server's Shutdown after Close
// does not wait on it (no defect found).
func TestParkedStreamEndsOnClose(t *testing.T) {
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	base := newHTTPTestServer(t, s)
	sid := initSession(t, base)
	first := openGET(t, base, sid)
	defer first.Body.Close()
	second := openGET(t, base, sid)
	defer second.Body.Close()
	if !waitGETs(s, sid, 1, 1) {
		t.Fatal("the first GET was not parked beside the second")
	}
	_ = s.Close()
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, first.Body); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the parked GET stream is still open 5 s after the server closed")
	}
}

// TestGETStateFreedOnSessionEnd: once a session with parked GET
// streams is deleted, nothing of it stays in the server's GET state
// (gets, parked): a server whose clients come and go does not
// grow (no defect found).
func TestGETStateFreedOnSessionEnd(t *testing.T) {
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	base := newHTTPTestServer(t, s)
	sid := initSession(t, base)
	for i := 0; i < 3; i++ {
		g := openGET(t, base, sid)
		defer g.Body.Close()
	}
	if !waitGETs(s, sid, 1, 2) {
		t.Fatal("want one GET served and two parked")
	}
	req, _ := http.NewRequest(http.MethodDelete, base+Path, nil)
	req.Header.Set(sessionHeader, sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		s.getMu.Lock()
		n := len(s.gets) + len(s.parked)
		s.getMu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("5 s after the session was deleted: %d entries of GET state left", n)
		}
	}
}

// TestSlowReaderGetsWholeResult: a write to a POST's answer fails
// "when it makes no progress for" the write timeout (docs/mcp.md), but
// the go-sdk writes a tools/call result as one SSE event, in one write,
// under one deadline: a client reading a large result (up to
// limits.max_result_bytes, 16 MB) slowly but steadily — it needs longer
// than the write timeout for it all — lost it midway though it never
// stopped reading. The deadline is now renewed as the answer makes
// progress (each 32 KB).
func TestSlowReaderGetsWholeResult(t *testing.T) {
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	s.writeTimeout = 500 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: smallBufListener{ln}, Config: &http.Server{Handler: s.Handler()}}
	srv.Start()
	defer srv.Close()
	const n = 512 << 10
	p := native.New(abi.ProviderInfo{ID: "org.test.bigslow"})
	p.MustRegister(abi.ToolDef{Name: "bigslow", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return strings.Repeat("x", n), nil })
	if err := s.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); !contains(s.Tools(), "bigslow"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("bigslow not exported")
		}
	}
	sid := initSession(t, srv.URL)
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(32 << 10)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bigslow","arguments":{}}}`
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s",
		ln.Addr(), sid, len(body), body)
	// Read at n bytes per 1.5 s: three times the write timeout for the
	// whole answer, but a few KB every few milliseconds.
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	start, rate := time.Now(), float64(n)/1.5
	var got int
	buf := make([]byte, 4<<10)
	for got < n {
		m, err := conn.Read(buf)
		got += m
		if err != nil {
			break
		}
		time.Sleep(time.Until(start.Add(time.Duration(float64(got) / rate * float64(time.Second)))))
	}
	if got < n {
		t.Fatalf("a client reading its %d-byte result slowly but steadily got %d bytes before the server gave up", n, got)
	}
}

// TestParkedOrderedByArrival: the parked GET streams of a session were
// ordered by when they parked, each on its own goroutine once a newer GET
// took the stream. Of two GETs opened within an instant the newer may park
// first; then the older was the one served again when the stream's client
// left, and the newer the one ended when too many were parked. They are
// ordered by when their GETs came.
func TestParkedOrderedByArrival(t *testing.T) {
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	base := newHTTPTestServer(t, s)
	sid := initSession(t, base)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	results := make(map[uint64]chan bool)
	// Parked newest GET first, then older ones, then the oldest of all
	// beyond the bound.
	arrivals := []uint64{50, 40, 30, 20, 10}
	for i, a := range arrivals {
		ch := make(chan bool, 1)
		results[a] = ch
		go func() { ch <- s.park(ctx, sid, a) }()
		want := min(i+1, maxParkedGETs)
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			s.getMu.Lock()
			n := len(s.parked[sid])
			s.getMu.Unlock()
			if n == want && (i < maxParkedGETs || len(results[a]) == 1) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %d: %d parked, want %d", a, n, want)
			}
		}
	}
	// Beyond the bound, the oldest GET ended: it came before all the
	// others, though it parked last.
	select {
	case r := <-results[10]:
		if r {
			t.Fatal("the oldest GET was told to serve again, want ended")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the oldest GET is still parked beyond the bound")
	}
	// The stream's client left: the GET that came last serves again,
	// though it parked first.
	s.resumeParked(sid)
	select {
	case r := <-results[50]:
		if !r {
			t.Fatal("the newest GET ended, want served again")
		}
	case r := <-results[20]:
		t.Fatalf("the GET that parked last (came second oldest) was told %v, want the newest served again", r)
	case <-time.After(10 * time.Second):
		t.Fatal("no parked GET was told to serve again")
	}
}
