package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// addBigTool registers tool big, whose answer is n bytes of text; called
// is closed when it first runs.
func addBigTool(t *testing.T, ts *testServer, n int) (called chan struct{}) {
	t.Helper()
	called = make(chan struct{})
	var once sync.Once
	p := native.New(abi.ProviderInfo{ID: "org.test.big", Version: "1.0.0"})
	p.MustRegister(abi.ToolDef{Name: "big", Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) {
			once.Do(func() { close(called) })
			return strings.Repeat("x", n), nil
		})
	if err := ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	return called
}

// waitNoRequests waits until no /rpc request of any token is in flight;
// false after 5 s.
func waitNoRequests(s *Server) bool {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		n := len(s.tokenReqs)
		s.mu.Unlock()
		if n == 0 {
			return true
		}
		time.Sleep(2 * time.Millisecond)
	}
	return false
}

// TestRPCAnswerWriteBounded: server.write_timeout is "to write one
// response" (docs/discovery.md), but POST /rpc wrote its answer without
// any deadline (the HTTP server has no WriteTimeout, as GET /events and
// /mcp streams are long-lived). A client that sent a request and stopped
// reading held the handler — its goroutine, its answer in memory and one
// of its token's server.max_requests_per_token slots — for as long as it
// kept the connection open: a few such clients and the token was refused
// for good. The answer's write now fails after write_timeout without
// progress and the request ends.
func TestRPCAnswerWriteBounded(t *testing.T) {
	ts := newTestServer(t, "  write_timeout: 200ms\n", false)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.s.ServeHTTPListener(smallSendBuffers{ln})
	called := addBigTool(t, ts, 1<<20)
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}`
	fmt.Fprintf(conn, "POST /rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", testToken, len(body), body)
	<-called
	if !waitNoRequests(ts.s) {
		t.Fatal("a client that does not read its answer still holds its /rpc request 5 s later (server.write_timeout is 200ms)")
	}
}

// A write deadline one answer sets must not fail the next request on the
// same keep-alive connection, however long after it comes, whether that
// request's handler sets a deadline of its own or not (the mux's 404):
// net/http clears it after each answer.
// (A raw connection: net/http's client would retry a GET that failed so
// on a new connection, and hide it.)
func TestRPCKeepAliveAfterAnswerDeadline(t *testing.T) {
	ts := newTestServer(t, "  write_timeout: 20ms\n", true)
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(conn)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	reqs := []struct {
		req  string
		want int
	}{
		{fmt.Sprintf("POST /rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s", testToken, len(body), body), 200},
		{"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", 404},
		{"GET /health HTTP/1.1\r\nHost: x\r\n\r\n", 200},
		{"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", 404},
	}
	for i, r := range reqs {
		if _, err := io.WriteString(conn, r.req); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d (%q) on the kept-alive connection: %v", i, strings.SplitN(r.req, "\r", 2)[0], err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != r.want || len(b) == 0 {
			t.Fatalf("request %d: HTTP %d, %d bytes, %v; want %d", i, resp.StatusCode, len(b), err, r.want)
		}
		time.Sleep(40 * time.Millisecond) // past the last answer's deadline
	}
}

// postRPC posts body to /rpc with the peer's token and content type ct
// (none when ""), and returns the status and the answer.
func postRPC(t *testing.T, ts *testServer, ct, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.url+"/rpc", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRPCContentTypeCaseInsensitive: a media type's type and subtype
// are case-insensitive (RFC 9110 §8.3.1), but POST /rpc compared the
// header's bytes: "Application/JSON" was refused 415 ("send
// application/json"), while "application/jsonp" or "application/json-rpc
// x" passed as JSON. The header is parsed as a media type: application/json
// in any case, with any parameters, passes (and application/json-rpc and
// application/jsonrequest, the JSON-RPC over HTTP draft's names); other
// types are refused, naming the type.
func TestRPCContentTypeCaseInsensitive(t *testing.T) {
	ts := newTestServer(t, "", true)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize"}`
	for _, ct := range []string{"", "application/json", "Application/JSON", "APPLICATION/JSON; charset=UTF-8", "application/json ;charset=utf-8",
		"application/json-rpc", "application/jsonrequest"} {
		if code, out := postRPC(t, ts, ct, body); code != 200 || !strings.Contains(out, `"result"`) {
			t.Errorf("Content-Type %q: HTTP %d %s; want 200 and a result", ct, code, out)
		}
	}
	for _, ct := range []string{"application/jsonp", "text/plain", "application/x-www-form-urlencoded", "application/json/x", "json"} {
		if code, out := postRPC(t, ts, ct, body); code != 415 || !strings.Contains(out, "Content-Type") {
			t.Errorf("Content-Type %q: HTTP %d %s; want 415 naming the Content-Type", ct, code, out)
		}
	}
}

// TestInitializeParamsErrorInJSONTerms: initialize's params error
// was Go's ("json: cannot unmarshal number into Go struct field
// initializeParams.protocol_version of type string"); every other method
// says it in JSON's terms (paramsError): "protocol_version: want string,
// got number".
func TestInitializeParamsErrorInJSONTerms(t *testing.T) {
	ts := newTestServer(t, "", true)
	_, out := postRPC(t, ts, "application/json", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":3}}`)
	if !strings.Contains(out, "protocol_version: want string, got number") || strings.Contains(out, "Go struct") {
		t.Fatalf("answer %s; want the error in JSON's terms", out)
	}
}

// streamsOf is how many GET /events streams agent holds.
func streamsOf(s *Server, agent string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams[agent]
}

// smallSendBuffers accepts connections whose kernel send buffer is
// small, so that a peer that does not read blocks the server's writes
// after kilobytes rather than megabytes.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// TestEventsSubscriberThatNeverReads (no defect): a GET /events
// client that never reads its stream neither blocks registry changes nor
// another stream, nor holds its own stream for ever: once a
// notification's write makes no progress for server.write_timeout the
// stream ends (and with it its registry subscriber and its slot of the
// agent's 64).
func TestEventsSubscriberThatNeverReads(t *testing.T) {
	ts := newTestServer(t, "  write_timeout: 100ms\n", false)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.s.ServeHTTPListener(smallSendBuffers{ln})
	url := "http://" + ln.Addr().String()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	fmt.Fprintf(conn, "GET /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n", testToken)
	deadline := time.Now().Add(10 * time.Second)
	for streamsOf(ts.s, "peer") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the stream that never reads was not opened")
		}
		time.Sleep(time.Millisecond)
	}
	// A stream that reads.
	req, _ := http.NewRequest("GET", url+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	last := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: ") && strings.Contains(sc.Text(), "org.test.last") {
				close(last)
				return
			}
		}
	}()
	if n := streamsOf(ts.s, "peer"); n != 2 {
		t.Fatalf("%d streams open, want 2", n)
	}
	// Notifications of ~20 KB each (an adapter of 120 tools with long
	// names) until the stream that never reads has been dropped.
	long := strings.Repeat("n", 120)
	p := native.New(abi.ProviderInfo{ID: "org.test.many", Version: "1.0.0"})
	for i := range 120 {
		p.MustRegister(abi.ToolDef{Name: fmt.Sprintf("%s%03d", long, i), Parameters: map[string]any{"type": "object"}},
			func(context.Context, any, abi.Env) (any, error) { return nil, nil })
	}
	ctx := context.Background()
	for streamsOf(ts.s, "peer") > 1 {
		if time.Now().After(deadline) {
			t.Fatal("a GET /events client that never reads still holds its stream 10 s later (server.write_timeout is 100ms)")
		}
		if err := ts.h.AddProvider(ctx, p, host.ProviderMeta{Trust: abi.System}); err != nil {
			t.Fatal(err)
		}
		if err := ts.h.RemoveProvider("org.test.many"); err != nil {
			t.Fatal(err)
		}
	}
	if n := streamsOf(ts.s, "peer"); n != 1 {
		t.Fatalf("%d streams open, want 1: the one that reads", n)
	}
	// The other stream still receives.
	if err := ts.h.AddProvider(ctx, native.New(abi.ProviderInfo{ID: "org.test.last", Version: "1.0.0"}), host.ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-last:
	case <-time.After(10 * time.Second):
		t.Fatal("the reading stream did not receive the last change")
	}
}

// TestOversizedBatchRefusedBeforeDecoding: a batch past
// server.max_batch was decoded whole before its length was checked: 2 MB
// of [1,1,…] (a million members, within the decode budget) cost 130 MB of
// allocations and a third of a second to be told "batch of 1048576
// requests exceeds the limit of 100", and a connection runs 32 messages
// at once. The members are counted before anything is decoded.
func TestOversizedBatchRefusedBeforeDecoding(t *testing.T) {
	ts := newTestServer(t, "", false)
	body := []byte("[" + strings.TrimSuffix(strings.Repeat(`1,"x,]",{"a":[1,2]},`, 100_000), ",") + "]")
	sess := &session{agent: "cli", transport: "unix"}
	var out []byte
	allocs := testing.AllocsPerRun(1, func() { out = ts.s.handleMessage(context.Background(), sess, body) })
	if !strings.Contains(string(out), "batch of 300000 requests exceeds the limit of 100 (server.max_batch)") {
		t.Fatalf("answer %.300s", out)
	}
	if allocs > 1000 {
		t.Fatalf("%.0f allocations to refuse a batch of 300000 members: it was decoded", allocs)
	}
	// A batch within the limit, with members that hold commas and
	// brackets in strings and nested values, is still counted right.
	ok := `[{"jsonrpc":"2.0","id":"a,]","method":"initialize","params":{"x":[1,[2,{"y":"]\",["}]]}},{"jsonrpc":"2.0","id":2,"method":"initialize"}]`
	if out := ts.s.handleMessage(context.Background(), sess, []byte(ok)); strings.Count(string(out), `"result"`) != 2 {
		t.Fatalf("a batch of 2: %.300s", out)
	}
}
