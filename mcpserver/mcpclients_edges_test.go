package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// openGET opens the GET stream of session sid; the caller closes the body.
func openGET(t *testing.T, base, sid string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+Path, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(sessionHeader, sid)
	req.Header.Set(versionHeader, "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestSecondGETStream: MCP (2025-06-18, 2025-11-25, "Multiple
// Connections") lets a client stay connected to several SSE streams at
// once; the server sends each message on one of them. The go-sdk answers a
// second GET on a session with 409 Conflict while the first is open, so a
// client whose stream broke without the server noticing (a network change,
// a laptop asleep: the old connection is half-open) could not open it again
// — the TypeScript SDK gives up after two tries — and heard no
// tools/list_changed for the rest of the session; clients that open a
// second GET (Claude's does) got 409 too. Now the newest GET of the session
// gets the notifications and an older one stays open, silent, until its
// client closes it or the session ends.
func TestSecondGETStream(t *testing.T) {
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	srv := newHTTPTestServer(t, s)
	base := srv
	sid := initSession(t, base)
	first := openGET(t, base, sid)
	defer first.Body.Close()
	if first.StatusCode != 200 {
		t.Fatalf("first GET: %d", first.StatusCode)
	}
	second := openGET(t, base, sid)
	defer second.Body.Close()
	if second.StatusCode != 200 || !strings.HasPrefix(second.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(second.Body)
		t.Fatalf("second GET of the session: %d %q, want 200 text/event-stream", second.StatusCode, b)
	}
	// A tool list change reaches the second stream.
	p := native.New(abi.ProviderInfo{ID: "org.test.more"})
	p.MustRegister(abi.ToolDef{Name: "more", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "x", nil })
	if err := s.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(second.Body)
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
			t.Fatal("the second GET stream ended without tools/list_changed")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no tools/list_changed on the second GET stream")
	}
	// Ending the session ends the first stream too, which got nothing (a
	// message goes to one stream only).
	req, _ := http.NewRequest(http.MethodDelete, base+Path, nil)
	req.Header.Set(sessionHeader, sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	rest := make(chan string, 1)
	go func() { b, _ := io.ReadAll(first.Body); rest <- string(b) }()
	select {
	case b := <-rest:
		if strings.Contains(b, "list_changed") {
			t.Errorf("the first stream got the notification too: %q", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first GET stream stayed open after the session was deleted")
	}
}

func newHTTPTestServer(t *testing.T, s *Server) string {
	t.Helper()
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestHTTPBatchUnknownMethod: in a 2025-03-26 session (JSON-RPC
// batches allowed) a batch holding a request of a method the server does
// not know was refused as a whole — 400, one -32600 error with id null —
// so none of its requests was served and the client could not tell which
// one failed, where stdio answers each (-32601 for the unknown one). Now
// the unknown method's requests get -32601 with their ids, its
// notifications are dropped (JSON-RPC answers none), and the rest of the
// batch is served.
func TestHTTPBatchUnknownMethod(t *testing.T) {
	_, base := anonHTTP(t, "")
	sid := initSessionVersion(t, base, "2025-03-26")
	h := map[string]string{sessionHeader: sid, versionHeader: "2025-03-26"}
	byID := func(a httpAnswer) map[string]int64 {
		t.Helper()
		out := map[string]int64{}
		var ms []map[string]any
		if err := json.Unmarshal([]byte(a.body), &ms); err != nil {
			ms = a.messages(t)
		}
		for _, m := range ms {
			var code int64
			if e, ok := m["error"].(map[string]any); ok {
				c, _ := e["code"].(float64)
				code = int64(c)
			}
			out[fmt.Sprint(m["id"])] = code
		}
		return out
	}
	a := post(t, base, `[{"jsonrpc":"2.0","id":5,"method":"nope"},{"jsonrpc":"2.0","method":"notifications/nope"},{"jsonrpc":"2.0","id":6,"method":"ping"},{"jsonrpc":"2.0","id":7,"method":"other/nope"}]`, h)
	if got, want := byID(a), map[string]int64{"5": jsonrpc.CodeMethodNotFound, "6": 0, "7": jsonrpc.CodeMethodNotFound}; a.status != 200 || !maps.Equal(got, want) {
		t.Errorf("batch with unknown methods: %d %s: answers %v, want %v", a.status, a.body, got, want)
	}
	// Only unknown requests: one JSON array.
	a = post(t, base, `[{"jsonrpc":"2.0","id":8,"method":"nope"}]`, h)
	if got := byID(a); a.status != 200 || !strings.HasPrefix(strings.TrimSpace(a.body), "[") || !maps.Equal(got, map[string]int64{"8": jsonrpc.CodeMethodNotFound}) {
		t.Errorf("batch of an unknown request: %d %s", a.status, a.body)
	}
	// Only an unknown notification: accepted, nothing to answer.
	if a = post(t, base, `[{"jsonrpc":"2.0","method":"notifications/nope"}]`, h); a.status != 202 || a.body != "" {
		t.Errorf("batch of an unknown notification: %d %q, want 202", a.status, a.body)
	}
	// An unknown notification beside a request the go-sdk serves.
	a = post(t, base, `[{"jsonrpc":"2.0","method":"notifications/nope"},{"jsonrpc":"2.0","id":9,"method":"ping"}]`, h)
	if got := byID(a); a.status != 200 || !maps.Equal(got, map[string]int64{"9": 0}) {
		t.Errorf("batch of an unknown notification and a ping: %d %s", a.status, a.body)
	}
}

// TestSetLevelInvalid: MCP (logging, "Error Handling") asks for -32602
// on an invalid log level; logging/setLevel took any string ("bogus") and
// answered {}. Each of the eight syslog levels is still accepted.
func TestSetLevelInvalid(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	ss.send(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"bogus"}}`)
	if l := ss.mustRead(); errorsOf(t, l)["1"] != jsonrpc.CodeInvalidParams || !strings.Contains(l, "bogus") {
		t.Errorf("setLevel bogus: %s, want -32602 naming the level", l)
	}
	for i, lv := range []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"} {
		id := itoa(10 + i)
		ss.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"logging/setLevel","params":{"level":"` + lv + `"}}`)
		if l := ss.mustRead(); l != `{"jsonrpc":"2.0","id":`+id+`,"result":{}}` {
			t.Errorf("setLevel %s: %s", lv, l)
		}
	}
}

// TestUnsupportedVersionHeaderSaysWhich: a request whose
// Mcp-Protocol-Version the server does not speak is refused (400, as MCP
// asks), but the message did not name the version sent and listed
// 2026-07-28 among the "supported versions", which this (stateful) server
// refuses (-32022): a client picking it from the list failed again. The
// message names the header's value and the versions a session can use.
func TestUnsupportedVersionHeaderSaysWhich(t *testing.T) {
	_, base := anonHTTP(t, "")
	sid := initSession(t, base)
	a := post(t, base, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, map[string]string{sessionHeader: sid, versionHeader: "1999-01-01"})
	code, id := a.errorCode(t)
	if a.status != 400 || code != jsonrpc.CodeInvalidRequest || id != float64(3) {
		t.Fatalf("ping with version 1999-01-01: %d %s", a.status, a.body)
	}
	if !strings.Contains(a.body, "1999-01-01") || strings.Contains(a.body, sessionlessVersion) || !strings.Contains(a.body, "2025-11-25") {
		t.Errorf("message %s: want the version sent named and only versions a session can use (not %s)", a.body, sessionlessVersion)
	}
}

// TestBadCursorSaysSo: MCP answers an invalid pagination cursor with
// -32602; tools/list said only "invalid params", not
// which parameter nor what was wrong with it. The message names the
// cursor.
func TestBadCursorSaysSo(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	for i, m := range []string{"tools/list"} {
		id := itoa(i + 1)
		ss.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + m + `","params":{"cursor":"garbage"}}`)
		if l := ss.mustRead(); errorsOf(t, l)[id] != jsonrpc.CodeInvalidParams || !strings.Contains(l, "cursor") || !strings.Contains(l, "garbage") {
			t.Errorf("%s with a bad cursor: %s, want -32602 naming the cursor", m, l)
		}
	}
}

// TestParkedGETsBounded: the older GET streams a session keeps open
// (TestSecondGETStream) are bounded: past maxParkedGETs the oldest is
// ended, so a client cannot hold a goroutine per GET it ever opened.
func TestParkedGETsBounded(t *testing.T) {
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	base := newHTTPTestServer(t, s)
	sid := initSession(t, base)
	var gets []*http.Response
	for i := 0; i < maxParkedGETs+2; i++ {
		g := openGET(t, base, sid)
		defer g.Body.Close()
		if g.StatusCode != 200 {
			t.Fatalf("GET %d: %d", i, g.StatusCode)
		}
		gets = append(gets, g)
		// The GET before this one parks on its own goroutine once this
		// one took the stream: waited for, so that they park in the
		// order they came (two GETs opened within the same instant may
		// park the other way round, and the older then outlives it).
		for deadline := time.Now().Add(10 * time.Second); i > 0; time.Sleep(time.Millisecond) {
			s.getMu.Lock()
			n := len(s.parked[sid])
			s.getMu.Unlock()
			if n >= min(i, maxParkedGETs) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %d: the one before it was not parked within 10 s (%d parked)", i, n)
			}
		}
	}
	// The first was parked, then ended when the sixth parked the fifth.
	done := make(chan error, 1)
	go func() { _, err := io.ReadAll(gets[0].Body); done <- err }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the oldest parked GET stream is still open")
	}
	s.getMu.Lock()
	n := len(s.parked[sid])
	s.getMu.Unlock()
	if n != maxParkedGETs {
		t.Errorf("%d parked streams, want %d", n, maxParkedGETs)
	}
}

// TestHTTPBatchRepeatedID: a batch (2025-03-26 session) holding two
// requests with one id got one answer: the go-sdk ran the first and
// dropped the other without a word (MCP: a request id is never reused in a
// session). It is refused as a whole, as on stdio: 400, -32600 saying
// which id.
func TestHTTPBatchRepeatedID(t *testing.T) {
	_, base := anonHTTP(t, "")
	sid := initSessionVersion(t, base, "2025-03-26")
	a := post(t, base, `[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":7,"method":"ping"}]`,
		map[string]string{sessionHeader: sid, versionHeader: "2025-03-26"})
	if code, _ := a.errorCode(t); a.status != 400 || code != jsonrpc.CodeInvalidRequest || !strings.Contains(a.body, "7") || !strings.Contains(a.body, "twice") {
		t.Errorf("batch repeating id 7: %d %s, want 400 -32600 naming the id", a.status, a.body)
	}
}

// TestResourceCursorsChecked: MCP answers an invalid pagination cursor
// with -32602. resources/templates/list (one page, so no cursor of its
// own) ignored any cursor and listed everything again, and resources/list
// refused a bad one as "invalid cursor" without naming it.
func TestResourceCursorsChecked(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	for i, m := range []string{"resources/templates/list", "resources/list"} {
		id := itoa(i + 1)
		ss.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + m + `","params":{"cursor":"%%bad"}}`)
		if l := ss.mustRead(); errorsOf(t, l)[id] != jsonrpc.CodeInvalidParams || !strings.Contains(l, "%%bad") {
			t.Errorf("%s with a bad cursor: %s, want -32602 naming the cursor", m, l)
		}
	}
}
