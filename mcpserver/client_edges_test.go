package mcpserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/native"
)

// A provider's schema is the provider's to write: a parameter schema the
// go-sdk's AddTool panics on (an x-mcp-header annotation on an object
// property, or one that is not a header name) must cost that tool its
// export, not crash the host (sync runs in a goroutine of its own).
func TestBadHeaderAnnotationDoesNotCrash(t *testing.T) {
	h, s := newTestHost(t, "")
	p := native.New(abi.ProviderInfo{ID: "org.test.hdr"})
	for name, prop := range map[string]map[string]any{
		"hdr-object": {"type": "object", "x-mcp-header": "X-A"},
		"hdr-number": {"type": "string", "x-mcp-header": 5},
		"hdr-space":  {"type": "string", "x-mcp-header": "X A"},
	} {
		p.MustRegister(abi.ToolDef{Name: name, MCPExportable: true,
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"a": prop}}},
			func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
	}
	p.MustRegister(abi.ToolDef{Name: "hdr-fine", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.Untrusted}); err != nil {
		t.Fatal(err)
	}
	s.sync() // what the registry goroutine runs on the change
	got := s.Tools()
	if !contains(got, "hdr-fine") {
		t.Errorf("exported = %v, want hdr-fine among them", got)
	}
	for _, n := range []string{"hdr-object", "hdr-number", "hdr-space"} {
		if contains(got, n) {
			t.Errorf("%s exported though the go-sdk refuses its schema", n)
		}
	}
}

// Arguments the go-sdk decoded are JSON: when the host cannot take them
// (nested deeper than it allows) the error says so, not that they are not
// valid JSON.
func TestDeepArgumentsErrorSaysWhy(t *testing.T) {
	_, s := newTestHost(t, "")
	cs := connectInMemory(t, s, nil)
	deep := strings.Repeat("[", 600) + strings.Repeat("]", 600)
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"value":` + deep + `}`)})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcpsdk.TextContent).Text
	if !res.IsError || !strings.HasPrefix(text, "InvalidParams: ") || !strings.Contains(text, "nested deeper than 512 levels") {
		t.Fatalf("result = %s", text)
	}
	if strings.Contains(text, "not valid JSON") {
		t.Errorf("valid JSON arguments reported as not valid JSON: %.120s", text)
	}
}

// blockedWriter is a stdout whose reader (the MCP client) stopped reading:
// after the first n bytes every write blocks until release.
type blockedWriter struct {
	mu      sync.Mutex
	n       int
	release chan struct{}
}

func (b *blockedWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	if b.n >= len(p) {
		b.n -= len(p)
		b.mu.Unlock()
		return len(p), nil
	}
	b.mu.Unlock()
	<-b.release
	return 0, io.ErrClosedPipe
}

// `aios-host mcp` on SIGTERM while its client does not read stdout (the
// pipe full): the go-sdk closes a session only after its requests are
// answered, and each answer was stuck in a write to stdout, so the process
// never exited (SIGKILL only; the audit log not closed). Run must return
// once its ctx ends, whatever stdout does.
func TestRunReturnsWithStdoutBlocked(t *testing.T) {
	_, s := newTestHost(t, "")
	inR, inW := io.Pipe()
	defer inW.Close()
	out := &blockedWriter{n: 1 << 20, release: make(chan struct{})}
	defer close(out.release)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, StdioTransport(inR, out)) }()
	send := func(l string) {
		if _, err := io.WriteString(inW, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	out.mu.Lock()
	out.n = 0 // from now on the client reads nothing
	out.mu.Unlock()
	for i := 1; i <= 20; i++ {
		send(`{"jsonrpc":"2.0","id":` + itoa(i) + `,"method":"tools/list"}`)
	}
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5 s of its ctx ending while stdout was blocked")
	}
}

// liveSessions counts the go-sdk's open sessions.
func liveSessions(s *Server) int {
	n := 0
	for range s.MCP().Sessions() {
		n++
	}
	return n
}

// Every initialize over HTTP opened a session that lived until
// mcp.http.session_timeout (30 min) unless the client deleted it: about
// 14 KiB (a goroutine and the go-sdk's state) each, and one client opened
// 1500 a second, so any token holder (or anyone, with anonymous_agent)
// could fill the host's memory. A user's sessions are now bounded
// (mcp.http.max_sessions, default 64): opening one more closes the one
// that user used least recently; other users' sessions are untouched.
func TestSessionsPerUserBounded(t *testing.T) {
	is := newIssuer(t)
	s, base := newHTTPServer(t, is, "")
	alice := map[string]string{"Authorization": "Bearer " + is.tokenFor(t, "alice", "aios.tools")}
	bob := map[string]string{"Authorization": "Bearer " + is.tokenFor(t, "bob", "aios.tools")}
	open := func(h map[string]string) string {
		a := post(t, base, initBody, h)
		sid := a.header.Get(sessionHeader)
		if a.status != 200 || sid == "" {
			t.Fatalf("initialize: %d %s", a.status, a.body)
		}
		return sid
	}
	ping := func(h map[string]string, sid string) int {
		hh := map[string]string{sessionHeader: sid, versionHeader: "2025-06-18"}
		for k, v := range h {
			hh[k] = v
		}
		return post(t, base, `{"jsonrpc":"2.0","id":9,"method":"ping"}`, hh).status
	}
	bobs := open(bob)
	first := open(alice)
	second := open(alice)
	for i := 0; i < 62; i++ {
		open(alice)
	}
	// alice has 64; using the first makes the second her least recently used.
	if st := ping(alice, first); st != 200 {
		t.Fatalf("ping on alice's first session: %d", st)
	}
	open(alice) // her 65th
	deadline := time.Now().Add(3 * time.Second)
	for ping(alice, second) != http.StatusNotFound {
		if time.Now().After(deadline) {
			t.Fatalf("alice's least recently used session is still open with %d sessions live", liveSessions(s))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st := ping(alice, first); st != 200 {
		t.Errorf("alice's recently used first session: ping %d, want 200", st)
	}
	if st := ping(bob, bobs); st != 200 {
		t.Errorf("bob's session: ping %d, want 200 (another user's sessions do not count)", st)
	}
	if n := liveSessions(s); n != 65 {
		t.Errorf("%d sessions live, want 65 (64 of alice, 1 of bob)", n)
	}
}

func TestMaxSessionsConfig(t *testing.T) {
	c, err := loadTestConfig(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	if err != nil || c.HTTP.MaxSessions != DefaultMaxSessions {
		t.Fatalf("default: %d, %v", c.HTTP.MaxSessions, err)
	}
	if c, err := loadTestConfig(t, "mcp:\n  http:\n    max_sessions: 2\n"); err != nil || c.HTTP.MaxSessions != 2 {
		t.Fatalf("max_sessions 2: %d, %v", c.HTTP.MaxSessions, err)
	}
	if _, err := loadTestConfig(t, "mcp:\n  http:\n    max_sessions: -1\n"); err == nil || !strings.Contains(err.Error(), "mcp.http.max_sessions") {
		t.Fatalf("max_sessions -1: %v", err)
	}
}

// DELETE of a session (the client ends it) with a tools/call in flight:
// the go-sdk closes a session only once its requests are done, and nothing
// cancelled them, so the DELETE waited for the call to end by itself (up to
// its deadline, 30 s by default) and the tool ran to the end for a result
// no one could receive. The session's calls are cancelled.
func TestDeleteSessionCancelsItsCalls(t *testing.T) {
	s, base := anonHTTP(t, "")
	defer s.Close() // ends the other session's call before the test server closes
	started := make(chan struct{}, 1)
	addSlowTool(t, s.h, started)
	for deadline := time.Now().Add(5 * time.Second); !contains(s.Tools(), "slow"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("slow not exported")
		}
	}
	sid := initSession(t, base)
	other := initSession(t, base) // a session of the same user, not deleted
	h := map[string]string{sessionHeader: sid, versionHeader: "2025-06-18"}
	go func() {
		_ = post(t, base, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`, h)
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool did not start")
	}
	otherDone := make(chan httpAnswer, 1)
	go func() {
		otherDone <- post(t, base, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`,
			map[string]string{sessionHeader: other, versionHeader: "2025-06-18"})
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the other session's call did not start")
	}
	deleted := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodDelete, base+Path, nil)
		req.Header.Set(sessionHeader, sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			deleted <- 0
			return
		}
		resp.Body.Close()
		deleted <- resp.StatusCode
	}()
	select {
	case st := <-deleted:
		if st != http.StatusNoContent {
			t.Fatalf("DELETE: %d", st)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("DELETE of a session did not return within 3 s: its call in flight was not cancelled")
	}
	select {
	case a := <-otherDone:
		t.Fatalf("the call of another session ended with the deleted one: %d %s", a.status, a.body)
	case <-time.After(200 * time.Millisecond):
	}
}

// JSON-RPC 2.0: when the id of an invalid request cannot be detected the
// error's id MUST be null. An id that is an object, an array or a boolean
// is no id: stdio echoed it back ({"id":{"a":1},"error":...}), where HTTP
// answers null.
func TestStdioInvalidIDTypeAnsweredWithNull(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	for _, id := range []string{`{"a":1}`, `[1]`, `true`} {
		ss.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		var m map[string]any
		if err := json.Unmarshal([]byte(ss.mustRead()), &m); err != nil {
			t.Fatal(err)
		}
		if m["id"] != nil || m["error"] == nil {
			t.Errorf("id %s: answer %v, want an error with id null", id, m)
		}
	}
	ss.ping(7)
}

// A client that stops reading the answer to its tools/call (a large
// result, its receive window full) held the request in flight for ever:
// the server has no write timeout (SSE streams are long), so the go-sdk's
// write to the POST's response blocked — a goroutine and the result held —
// and, the POST never ending, the session never idled out. A write to a
// POST's response that makes no progress for the write timeout fails.
func TestUnreadResponseDoesNotHoldSession(t *testing.T) {
	s, base := anonHTTP(t, "    session_timeout: 1s\nlimits:\n  max_result_bytes: 33554432\n")
	s.writeTimeout = 500 * time.Millisecond
	started := make(chan struct{})
	p := native.New(abi.ProviderInfo{ID: "org.test.big"})
	p.MustRegister(abi.ToolDef{Name: "big", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) {
			close(started)
			return strings.Repeat("x", 12<<20), nil
		})
	if err := s.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); !contains(s.Tools(), "big"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("big not exported")
		}
	}
	sid := initSession(t, base)
	conn := dialSmallBuffer(t, base)
	defer conn.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big","arguments":{}}}`
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s",
		strings.TrimPrefix(base, "http://"), sid, len(body), body)
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool did not start")
	}
	// The answer fills the window; the write gives up after 0.5 s; the
	// session, idle from then on, ends 1 s later.
	// (20 s passed once on a machine loaded by other sessions, under
	// -race: the 12 MiB answer is encoded and hashed first.)
	for deadline := time.Now().Add(90 * time.Second); liveSessions(s) > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the session of a client that stopped reading its answer is still open 90 s later (session_timeout 1 s): the unread answer holds it")
		}
	}
}

// A request whose params are null where the method needs them is the
// client's error: the go-sdk answers tools/call so with -32600 (missing
// required "params"), but initialize with code 0, which became -32603
// (Internal error: a fault of the server).
func TestNullParamsAreClientErrors(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":null}`)
	if got := errorsOf(t, ss.mustRead()); got["1"] != jsonrpc.CodeInvalidRequest {
		t.Errorf("initialize with params null: %v, want -32600 as for tools/call", got)
	}
	ss.initialize("2025-06-18")
	ss.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":null}`)
	if got := errorsOf(t, ss.mustRead()); got["2"] != jsonrpc.CodeInvalidRequest {
		t.Errorf("tools/call with params null: %v", got)
	}
}

// mcp.http.allowed_origins is documented for "a browser client served
// elsewhere" (the MCP Inspector at http://localhost:6274), but /mcp sent no
// CORS headers: the browser's preflight (OPTIONS, no credentials) got 401,
// and an answer without Access-Control-Allow-Origin is withheld from the
// page, so no such client could connect. An allowed origin gets CORS; any
// other still gets 403.
func TestAllowedOriginGetsCORS(t *testing.T) {
	is := newIssuer(t)
	_, base := newHTTPServer(t, is, "    allowed_origins: ['http://localhost:6274']\n")
	preflight := func(origin string) *http.Response {
		req, _ := http.NewRequest(http.MethodOptions, base+Path, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-session-id, mcp-protocol-version")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := preflight("http://localhost:6274")
	if resp.StatusCode/100 != 2 || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:6274" {
		t.Fatalf("preflight of an allowed origin: %d %v", resp.StatusCode, resp.Header)
	}
	allowed := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers"))
	for _, h := range []string{"authorization", "content-type", "mcp-session-id", "mcp-protocol-version"} {
		if !strings.Contains(allowed, h) {
			t.Errorf("preflight allows headers %q, not %s", allowed, h)
		}
	}
	if m := resp.Header.Get("Access-Control-Allow-Methods"); !strings.Contains(m, "POST") || !strings.Contains(m, "DELETE") {
		t.Errorf("preflight allows methods %q", m)
	}
	if resp := preflight("http://evil.example"); resp.StatusCode != http.StatusForbidden || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight of another origin: %d %v", resp.StatusCode, resp.Header)
	}
	tok := is.tokenFor(t, "alice", "aios.tools")
	a := post(t, base, initBody, map[string]string{"Origin": "http://localhost:6274", "Authorization": "Bearer " + tok})
	if a.status != 200 || a.header.Get("Access-Control-Allow-Origin") != "http://localhost:6274" ||
		!strings.Contains(strings.ToLower(a.header.Get("Access-Control-Expose-Headers")), "mcp-session-id") {
		t.Errorf("initialize from an allowed origin: %d %v", a.status, a.header)
	}
	// Without a token the 401 must be readable too (its WWW-Authenticate
	// starts the OAuth flow).
	a = post(t, base, initBody, map[string]string{"Origin": "http://localhost:6274"})
	if a.status != 401 || a.header.Get("Access-Control-Allow-Origin") != "http://localhost:6274" ||
		!strings.Contains(strings.ToLower(a.header.Get("Access-Control-Expose-Headers")), "www-authenticate") {
		t.Errorf("401 to an allowed origin: %d %v", a.status, a.header)
	}
}

// The tool list follows the registry asynchronously (sync runs on registry
// events). A call in between resolved the tool's default version at call
// time: once a newer version that is not exportable was registered, an MCP
// client could run it by the exported name until sync caught up. A call
// runs the version that was exported.
func TestCallRunsTheExportedVersion(t *testing.T) {
	h, s := newTestHost(t, "")
	v1 := native.New(abi.ProviderInfo{ID: "org.test.v1", Version: "1.0.0"})
	v1.MustRegister(abi.ToolDef{Name: "ver", Version: "1.0.0", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "exported v1", nil })
	if err := h.AddProvider(context.Background(), v1, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	s.sync()
	cs := connectInMemory(t, s, nil)
	s.mu.Lock() // hold sync off: the registry change below is not followed yet
	v2 := native.New(abi.ProviderInfo{ID: "org.test.v2", Version: "2.0.0"})
	v2.MustRegister(abi.ToolDef{Name: "ver", Version: "2.0.0", Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "internal v2", nil })
	err := h.AddProvider(context.Background(), v2, host.ProviderMeta{Source: "test", Trust: abi.System})
	var res *mcpsdk.CallToolResult
	if err == nil {
		res, err = cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "ver", Arguments: map[string]any{}})
	}
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcpsdk.TextContent).Text; text != "exported v1" {
		t.Errorf("tools/call ver ran %q: a version that is not exportable", text)
	}
}

// The verifier fetched the issuer's JWKS holding its lock, which every
// token check takes, cached tokens included: anyone (no valid token
// needed: a JWT with an unknown kid makes the host refetch, at most every
// 10 s) could stall every MCP client for as long as the JWKS URL takes to
// answer (5 s timeout). A fetch no longer blocks checks that need none.
func TestJWKSFetchDoesNotStallOtherTokens(t *testing.T) {
	is := newIssuer(t)
	var slow atomic.Bool
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() {
			<-release
		}
		resp, err := http.Get(is.jwks)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, resp.Body)
	}))
	defer srv.Close()
	defer close(release)
	now := time.Now()
	v := newVerifier(HTTPConfig{Issuer: is.url, JWKSURL: srv.URL, Agent: "mcp"}, func() string { return "http://aios.test/mcp" }, nil)
	v.now = func() time.Time { return now }
	good := is.token(t, tokenOpts{aud: "http://aios.test/mcp", scope: "s"})
	if _, err := v.verify(context.Background(), good); err != nil {
		t.Fatal(err)
	}
	// Another good token, verified with the keys already fetched.
	other := is.token(t, tokenOpts{aud: "http://aios.test/mcp", scope: "s", exp: 2 * time.Hour})
	now = now.Add(11 * time.Second)
	slow.Store(true)
	// A token of an unknown key id: the verifier refetches (slowly).
	stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	sig, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: stranger},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader(jose.HeaderKey("kid"), "unknown-kid"))
	bad, _ := jwt.Signed(sig).Claims(jwt.Claims{Issuer: is.url, Audience: jwt.Audience{"http://aios.test/mcp"},
		Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))}).Serialize()
	go func() { _, _ = v.verify(context.Background(), bad) }()
	time.Sleep(200 * time.Millisecond) // the refetch is under way
	for name, tok := range map[string]string{"cached": good, "known key": other} {
		done := make(chan error, 1)
		go func() { _, err := v.verify(context.Background(), tok); done <- err }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s token: %v", name, err)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("a %s token waited for another request's JWKS fetch", name)
		}
	}
}

// smallBufListener gives each accepted connection a small send buffer, so
// that a client that stops reading blocks the server's writes soon.
type smallBufListener struct{ net.Listener }

func (l smallBufListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// A session whose GET stream its client stopped reading: once the stream's
// window filled, the go-sdk's write of a list_changed notification to it
// blocked for ever (the server has no write timeout), and it notifies the
// sessions one after the other, so no session after it ever heard of a tool
// list change again. A write to a GET stream that makes no progress for the
// write timeout fails.
func TestStuckGETStreamDoesNotSilenceOthers(t *testing.T) {
	h, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	s.writeTimeout = 500 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: smallBufListener{ln}, Config: &http.Server{Handler: s.Handler()}}
	srv.Start()
	defer srv.Close()
	base := srv.URL
	stuck := initSession(t, base)
	conn := dialSmallBuffer(t, base)
	defer conn.Close()
	fmt.Fprintf(conn, "GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n",
		strings.TrimPrefix(base, "http://"), stuck)
	time.Sleep(100 * time.Millisecond)
	// Fill the stuck stream with list changes.
	p := native.New(abi.ProviderInfo{ID: "org.test.churn"})
	p.MustRegister(abi.ToolDef{Name: "churn", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "x", nil })
	for i := 0; i < 400; i++ {
		if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(12 * time.Millisecond)
		if err := h.RemoveProvider("org.test.churn"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(12 * time.Millisecond)
	}
	// A client connected now hears of the next change.
	changed := make(chan struct{}, 16)
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t"}, &mcpsdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcpsdk.ToolListChangedRequest) { changed <- struct{}{} },
	}).Connect(context.Background(), &mcpsdk.StreamableClientTransport{Endpoint: base + Path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	time.Sleep(200 * time.Millisecond) // its GET stream opens
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(15 * time.Second):
		t.Fatal("no tools/list_changed for a new session: the notification is stuck behind a stream its client does not read")
	}
}

// dialSmallBuffer connects to base (http://host:port) with a 4 KiB
// receive buffer: a client that stops reading fills it, and the server's
// writes then block.
func dialSmallBuffer(t *testing.T, base string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = testutil.SetRecvBuffer(fd, 4096) })
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	return conn
}
