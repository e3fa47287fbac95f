package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestUndeclaredCapabilityMethods: the server declares no prompts
// capability (nor resources with mcp.resources false), yet prompts/list
// answered an empty list, prompts/get -32602 "unknown prompt", and with
// resources off resources/list and resources/templates/list answered
// empty lists. A server answers a method of a capability it did not
// declare as one it does not serve: -32601, as the SDKs' servers do.
func TestUndeclaredCapabilityMethods(t *testing.T) {
	for _, tc := range []struct {
		cfg     string
		methods []string
		served  []string
	}{
		{"", []string{"prompts/list", "prompts/get"}, []string{"resources/list", "resources/templates/list"}},
		{"mcp:\n  resources: false\n", []string{"prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read"}, nil},
	} {
		_, s := newTestHost(t, tc.cfg)
		ss := newStdioSession(t, s)
		ss.initialize("2025-06-18")
		for i, m := range tc.methods {
			id := itoa(i + 1)
			ss.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + m + `","params":{"name":"x","uri":"aios-space://a/b"}}`)
			if l := ss.mustRead(); errorsOf(t, l)[id] != jsonrpc.CodeMethodNotFound || !strings.Contains(l, m) {
				t.Errorf("config %q, %s: %s, want -32601 naming the method", tc.cfg, m, l)
			}
		}
		for i, m := range tc.served {
			id := itoa(100 + i)
			ss.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + m + `"}`)
			if l := ss.mustRead(); errorsOf(t, l)[id] != 0 {
				t.Errorf("config %q, %s: %s, want a result", tc.cfg, m, l)
			}
		}
	}
}

// TestVersionHeaderIsTheSessions: the go-sdk applies the rules of
// the version in a request's Mcp-Protocol-Version header (2025-03-26 when
// there is none), not those of the version the session negotiated: a
// session that negotiated 2025-06-18 (no JSON-RPC batches) had a batch
// served when it was sent with header 2025-03-26, or with no header. A
// request whose header names another version than the session's is
// refused with 400 (the client must send the negotiated one); one without
// the header is served as of the session's version.
func TestVersionHeaderIsTheSessions(t *testing.T) {
	_, base := anonHTTP(t, "")
	sid := initSession(t, base) // 2025-06-18
	batch := `[{"jsonrpc":"2.0","id":11,"method":"ping"},{"jsonrpc":"2.0","id":12,"method":"ping"}]`
	a := post(t, base, batch, map[string]string{sessionHeader: sid, versionHeader: "2025-03-26"})
	if code, _ := a.errorCode(t); a.status != 400 || code != jsonrpc.CodeInvalidRequest || !strings.Contains(a.body, "2025-03-26") || !strings.Contains(a.body, "2025-06-18") {
		t.Errorf("batch with header 2025-03-26 on a 2025-06-18 session: %d %s, want 400 -32600 naming both versions", a.status, a.body)
	}
	a = post(t, base, `{"jsonrpc":"2.0","id":"p","method":"ping"}`, map[string]string{sessionHeader: sid, versionHeader: "2025-11-25"})
	if code, id := a.errorCode(t); a.status != 400 || code != jsonrpc.CodeInvalidRequest || id != "p" {
		t.Errorf("ping with header 2025-11-25 on a 2025-06-18 session: %d %s, want 400 -32600 with the id", a.status, a.body)
	}
	a = post(t, base, batch, map[string]string{sessionHeader: sid})
	if code, _ := a.errorCode(t); a.status != 400 || code != jsonrpc.CodeInvalidRequest || !strings.Contains(a.body, "batch") {
		t.Errorf("batch without the header on a 2025-06-18 session: %d %s, want it refused", a.status, a.body)
	}
	for _, h := range []map[string]string{{sessionHeader: sid}, {sessionHeader: sid, versionHeader: "2025-06-18"}} {
		if code, _ := post(t, base, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, h).errorCode(t); code != 0 {
			t.Errorf("ping with headers %v: error %d", h, code)
		}
	}
	// A 2025-03-26 session's client may send no header (its version has
	// none): its batches are served.
	old := initSessionVersion(t, base, "2025-03-26")
	if a := post(t, base, batch, map[string]string{sessionHeader: old}); a.status != 200 || len(a.messages(t)) != 2 {
		t.Errorf("batch without the header on a 2025-03-26 session: %d %s", a.status, a.body)
	}
}

// TestBatchRefusedAnswersEachRequest: in a 2025-03-26 session the
// go-sdk refuses a whole batch when one of its members is invalid — a
// request without the params its method requires (tools/call without
// params), a request of a notification's method, a notification of a
// request's method: the answer was one -32600 error with id null — no
// response with the id of any request, so a client waiting on them by id
// waited for ever — and the -32601 answers of the batch's unknown methods
// were dropped. As on stdio, the invalid member is now answered -32600
// with its id (a notification: not at all), the unknown methods -32601,
// and the rest of the batch is served.
func TestBatchRefusedAnswersEachRequest(t *testing.T) {
	_, base := anonHTTP(t, "")
	sid := initSessionVersion(t, base, "2025-03-26")
	h := map[string]string{sessionHeader: sid, versionHeader: "2025-03-26"}
	for _, tc := range []struct {
		batch string
		want  map[float64]int64
	}{
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"bogus/x"},{"jsonrpc":"2.0","method":"notifications/bogus"},{"jsonrpc":"2.0","id":3,"method":"tools/call"}]`,
			map[float64]int64{1: 0, 2: jsonrpc.CodeMethodNotFound, 3: jsonrpc.CodeInvalidRequest}},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":3,"method":"tools/call"}]`,
			map[float64]int64{1: 0, 3: jsonrpc.CodeInvalidRequest}},
		{`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":4,"method":"notifications/initialized"},{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}]`,
			map[float64]int64{1: 0, 4: jsonrpc.CodeInvalidRequest}},
		{`[{"jsonrpc":"2.0","id":3,"method":"tools/call"},{"jsonrpc":"2.0","id":5,"method":"resources/read"}]`,
			map[float64]int64{3: jsonrpc.CodeInvalidRequest, 5: jsonrpc.CodeInvalidRequest}},
	} {
		a := post(t, base, tc.batch, h)
		var ms []map[string]any
		if err := json.Unmarshal([]byte(a.body), &ms); err != nil {
			ms = a.messages(t)
		}
		got := map[float64]int64{}
		for _, m := range ms {
			id, _ := m["id"].(float64)
			var code int64
			if e, ok := m["error"].(map[string]any); ok {
				c, _ := e["code"].(float64)
				code = int64(c)
				if msg, _ := e["message"].(string); code == jsonrpc.CodeInvalidRequest && msg == "" {
					t.Errorf("%s: answer to %v says nothing", tc.batch, id)
				}
			}
			got[id] = code
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("%s: %d %s: answers %v, want %v", tc.batch, a.status, a.body, got, tc.want)
		}
	}
	// The session still serves.
	if code, _ := post(t, base, `{"jsonrpc":"2.0","id":9,"method":"ping"}`, h).errorCode(t); code != 0 {
		t.Errorf("ping after: %d", code)
	}
}

// TestNoGoroutineLeftAfterClose: a session with a parked GET stream
// had a goroutine of this package waiting for the session's end (ss.Wait)
// that outlived Server.Close — for as long as the session lived, for ever
// without a session timeout. Once Close has returned and the streams'
// clients are gone, no goroutine runs this package's code.
func TestNoGoroutineLeftAfterClose(t *testing.T) {
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	base := newHTTPTestServer(t, s)
	sid := initSession(t, base)
	first := openGET(t, base, sid)
	second := openGET(t, base, sid)
	if !waitGETs(s, sid, 1, 1) {
		t.Fatal("the first GET was not parked beside the second")
	}
	_ = s.Close()
	first.Body.Close()
	second.Body.Close()
	ours := func() []string {
		buf := make([]byte, 1<<20)
		var out []string
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "mcpserver.(*Server)") && !strings.Contains(g, "TestNoGoroutine") {
				out = append(out, g)
			}
		}
		return out
	}
	for end := time.Now().Add(5 * time.Second); len(ours()) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("5 s after Close, goroutines of the server still run:\n%s", strings.Join(ours(), "\n\n"))
		}
	}
}

// TestParkedEndsWithSession: a parked GET stream ends when its
// session ends, whoever ends it (here the server's session timeout),
// with no goroutine per session waiting for that.
func TestParkedEndsWithSession(t *testing.T) {
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n    session_timeout: 300ms\n")
	base := newHTTPTestServer(t, s)
	sid := initSession(t, base)
	first := openGET(t, base, sid)
	defer first.Body.Close()
	second := openGET(t, base, sid)
	defer second.Body.Close()
	if !waitGETs(s, sid, 1, 1) {
		t.Fatal("the first GET was not parked beside the second")
	}
	for _, g := range []*http.Response{first, second} {
		done := make(chan struct{})
		go func() { _, _ = io.Copy(io.Discard, g.Body); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("a GET stream is still open 10 s after its session timed out")
		}
	}
	if !waitGETs(s, sid, 0, 0) {
		t.Error("GET state left after the session ended")
	}
}

// TestStdioCancelEndsTheCall: notifications/cancelled of a
// tools/call in flight on stdio ends the tool's run (its context is
// cancelled), not only its answer (no defect found: the guard of what
// TestStdioCancelledRequestGetsNoResponse does not check).
func TestStdioCancelEndsTheCall(t *testing.T) {
	h, s := newTestHost(t, "")
	started, ended := make(chan struct{}, 1), make(chan error, 1)
	p := native.New(abi.ProviderInfo{ID: "org.test.slowend"})
	p.MustRegister(abi.ToolDef{Name: "slowend", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, _ any, _ abi.Env) (any, error) {
			started <- struct{}{}
			<-ctx.Done()
			ended <- ctx.Err()
			return nil, ctx.Err()
		})
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	waitExported(t, s, "slowend")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	ss.send(`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"slowend","arguments":{},"_meta":{"progressToken":"pt"}}}`)
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool did not start")
	}
	ss.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c","reason":"user"}}`)
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call still runs 5 s after notifications/cancelled")
	}
	ss.ping(1)
}

// TestFutureVersionHeaderOnSession: on a session, a header naming a
// version past the server's (2099-01-01, which the go-sdk takes for the
// session-less protocol of 2026-07-28 and later) got, for a notification,
// 400 "missing required Mcp-Method header" — a header of a protocol the
// session does not speak — and a response (to a server request) was
// accepted (202), though MCP asks for 400 on an unsupported version. Both
// are refused naming the header's version and the session's.
func TestFutureVersionHeaderOnSession(t *testing.T) {
	_, base := anonHTTP(t, "")
	sid := initSession(t, base)
	h := map[string]string{sessionHeader: sid, versionHeader: "2099-01-01"}
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`,
		`{"jsonrpc":"2.0","id":99,"result":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	} {
		a := post(t, base, body, h)
		if code, _ := a.errorCode(t); a.status != 400 || code != jsonrpc.CodeInvalidRequest || !strings.Contains(a.body, "2099-01-01") || !strings.Contains(a.body, "2025-06-18") {
			t.Errorf("%s with header 2099-01-01: %d %s, want 400 -32600 naming both versions", body, a.status, a.body)
		}
	}
}
