package mcpserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/aios-host/aios-host/config"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// anonHTTP serves a test host's /mcp without tokens (anonymous agent mcp).
func anonHTTP(t *testing.T, extra string) (*Server, string) {
	t.Helper()
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n"+extra)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, srv.URL
}

type httpAnswer struct {
	status int
	header http.Header
	body   string
}

// post sends body to base/mcp with the headers of an MCP client plus h.
func post(t *testing.T, base, body string, h map[string]string) httpAnswer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+Path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return httpAnswer{resp.StatusCode, resp.Header, string(b)}
}

// messages are the JSON-RPC messages of an answer (SSE events or a JSON
// body).
func (a httpAnswer) messages(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	add := func(s string) {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatalf("message %q: %v", s, err)
		}
		out = append(out, m)
	}
	if strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
		add(a.body)
		return out
	}
	for _, l := range strings.Split(a.body, "\n") {
		if d, ok := strings.CutPrefix(l, "data: "); ok {
			add(d)
		}
	}
	return out
}

// errorCode is the code of the answer's one JSON-RPC error (0 if none) and
// its id.
func (a httpAnswer) errorCode(t *testing.T) (int64, any) {
	t.Helper()
	ms := a.messages(t)
	if len(ms) != 1 {
		t.Fatalf("answer %d %q: want one message", a.status, a.body)
	}
	e, _ := ms[0]["error"].(map[string]any)
	if e == nil {
		return 0, ms[0]["id"]
	}
	c, _ := e["code"].(float64)
	return int64(c), ms[0]["id"]
}

func initSession(t *testing.T, base string) string {
	t.Helper()
	return initSessionVersion(t, base, "2025-06-18")
}

func initSessionVersion(t *testing.T, base, version string) string {
	t.Helper()
	a := post(t, base, strings.Replace(initBody, "2025-06-18", version, 1), nil)
	sid := a.header.Get(sessionHeader)
	if a.status != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", a.status, a.body)
	}
	if a := post(t, base, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{sessionHeader: sid}); a.status != 202 {
		t.Fatalf("initialized: %d %s", a.status, a.body)
	}
	return sid
}

// TestHTTPOrigin: a request with an Origin that is not this server's is
// refused (403) before anything else; same-origin requests, requests of an
// allowed origin and requests without Origin are served.
func TestHTTPOrigin(t *testing.T) {
	_, base := anonHTTP(t, "    allowed_origins: ['https://app.example.com']\n")
	for _, tc := range []struct {
		origin string
		status int
	}{
		{"", 200},
		{"http://evil.example", 403},
		{"http://evil.example:" + strings.Split(base, ":")[2], 403},
		{"null", 403},
		{base, 200},                      // same origin
		{"http://127.0.0.1", 200},        // the resource URI's origin (Options.Resource)
		{"https://app.example.com", 200}, // mcp.http.allowed_origins
		{"https://APP.example.com", 200},
		{"http://app.example.com", 403},
	} {
		h := map[string]string{}
		if tc.origin != "" {
			h["Origin"] = tc.origin
		}
		if a := post(t, base, initBody, h); a.status != tc.status {
			t.Errorf("Origin %q: %d %s, want %d", tc.origin, a.status, a.body, tc.status)
		}
	}
	// Also when the request carries a session.
	sid := initSession(t, base)
	a := post(t, base, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, map[string]string{sessionHeader: sid, "Origin": "http://evil.example"})
	if a.status != 403 {
		t.Errorf("tools/list from another origin: %d %s", a.status, a.body)
	}
}

func TestLoadConfigAllowedOrigins(t *testing.T) {
	for _, bad := range []string{"app.example.com", "https://app.example.com/path", "null", "*"} {
		_, err := loadTestConfig(t, "mcp:\n  http:\n    allowed_origins: ['"+bad+"']\n")
		if err == nil || !strings.Contains(err.Error(), "allowed_origins[0]") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
	if _, err := loadTestConfig(t, "mcp:\n  http:\n    allowed_origins: ['http://localhost:6274', 'https://a.example/']\n"); err != nil {
		t.Error(err)
	}
}

// TestHTTPJSONRPCErrors: what the go-sdk answers with a plain-text 400 or
// an error of code 0 is a JSON-RPC error with a standard code; a POST
// without a session that is not initialize gets 400.
func TestHTTPJSONRPCErrors(t *testing.T) {
	_, base := anonHTTP(t, "")
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	} {
		a := post(t, base, body, nil)
		code, id := a.errorCode(t)
		if a.status != 400 || code != jsonrpc.CodeInvalidRequest || a.header.Get(sessionHeader) != "" {
			t.Errorf("%s without a session: %d %s", body, a.status, a.body)
		}
		if strings.Contains(body, `"id":7`) && id != float64(7) {
			t.Errorf("%s without a session: id %v", body, id)
		}
	}
	if a := post(t, base, `{not json`, nil); a.status != 400 || !strings.Contains(a.body, "-32700") {
		t.Errorf("garbage without a session: %d %s", a.status, a.body)
	}

	// initialize with a protocolVersion that is not a string: -32602.
	a := post(t, base, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil)
	if code, _ := a.errorCode(t); code != jsonrpc.CodeInvalidParams {
		t.Errorf("protocolVersion 5: %d %s", a.status, a.body)
	}
	// (The go-sdk keeps no session of a failed initialize, and no other
	// POST without a session opens one: over HTTP no request comes
	// before initialize. Over stdio: TestStdioErrorCodes.)

	sid := initSession(t, base)
	s := map[string]string{sessionHeader: sid, versionHeader: "2025-06-18"}
	a = post(t, base, `{"jsonrpc":"2.0","id":"u","method":"tools/explode"}`, s)
	if code, id := a.errorCode(t); a.status != 200 || code != jsonrpc.CodeMethodNotFound || id != "u" || !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
		t.Errorf("unknown method: %d %v %s", a.status, a.header, a.body)
	}
	a = post(t, base, initBody, s)
	if code, _ := a.errorCode(t); code != jsonrpc.CodeInvalidRequest {
		t.Errorf("second initialize: %d %s", a.status, a.body)
	}
	a = post(t, base, `{"jsonrpc":"2.0","method":"notifications/bogus"}`, s)
	if code, id := a.errorCode(t); a.status != 400 || code != jsonrpc.CodeInvalidRequest || id != nil {
		t.Errorf("unknown notification: %d %s", a.status, a.body)
	}
	a = post(t, base, `{"jsonrpc":"2.0","id":3,"method":`, s)
	if code, _ := a.errorCode(t); a.status != 400 || code != jsonrpc.CodeParseError {
		t.Errorf("garbage: %d %s", a.status, a.body)
	}
	// Batches: refused after 2025-06-18, served before; the body reaches
	// the go-sdk unchanged.
	batch := `[{"jsonrpc":"2.0","id":11,"method":"ping"},{"jsonrpc":"2.0","id":12,"method":"ping"}]`
	a = post(t, base, batch, s)
	if code, _ := a.errorCode(t); a.status != 400 || code != jsonrpc.CodeInvalidRequest || !strings.Contains(a.body, "batch") {
		t.Errorf("batch in 2025-06-18: %d %s", a.status, a.body)
	}
	old := initSessionVersion(t, base, "2025-03-26")
	a = post(t, base, batch, map[string]string{sessionHeader: old, versionHeader: "2025-03-26"})
	if ms := a.messages(t); a.status != 200 || len(ms) != 2 || ms[0]["result"] == nil || ms[1]["result"] == nil {
		t.Errorf("batch in 2025-03-26: %d %s", a.status, a.body)
	}
	// The session still serves.
	a = post(t, base, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"value":1}}}`, s)
	if code, id := a.errorCode(t); a.status != 200 || code != 0 || id != float64(4) {
		t.Errorf("tools/call: %d %s", a.status, a.body)
	}
}

// TestHTTPCancelledRequestGetsNoResponse: after notifications/cancelled
// the request's stream ends without a response to it.
func TestHTTPCancelledRequestGetsNoResponse(t *testing.T) {
	s, base := anonHTTP(t, "")
	started := make(chan struct{}, 1)
	addSlowTool(t, s.h, started)
	waitExported(t, s, "slow")
	sid := initSession(t, base)
	h := map[string]string{sessionHeader: sid, versionHeader: "2025-06-18"}
	got := make(chan httpAnswer, 1)
	go func() {
		got <- post(t, base, `{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"slow","arguments":{}}}`, h)
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool did not start")
	}
	if a := post(t, base, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-1"}}`, h); a.status != 202 {
		t.Fatalf("cancel: %d %s", a.status, a.body)
	}
	select {
	case a := <-got:
		for _, m := range a.messages(t) {
			if m["id"] == "slow-1" {
				t.Fatalf("the cancelled request was answered: %s", a.body)
			}
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled request's stream did not end")
	}
	if a := post(t, base, `{"jsonrpc":"2.0","id":5,"method":"ping"}`, h); a.status != 200 || !strings.Contains(a.body, `"result":{}`) {
		t.Fatalf("ping: %d %s", a.status, a.body)
	}
}

func loadTestConfig(t *testing.T, yamlCfg string) (Config, error) {
	t.Helper()
	cfg, err := config.Parse([]byte(yamlCfg), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := AddDefaultAgent(cfg); err != nil {
		t.Fatal(err)
	}
	return LoadConfig(cfg)
}

// FuzzFixHTTP feeds arbitrary POST bodies and go-sdk writes to fixHTTP:
// it never panics, hands the go-sdk the body unchanged, answers a body it
// keeps from the go-sdk with a JSON-RPC error, and rewrites a write only
// into one that still decodes.
func FuzzFixHTTP(f *testing.F) {
	for _, s := range []string{
		initBody,
		`[{"jsonrpc":"2.0","id":11,"method":"ping"},{"jsonrpc":"2.0","id":12,"method":"ping"}]`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		`{"jsonrpc":`, `[]`, `"x"`, `{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"x"}}}`,
	} {
		f.Add([]byte(s), true, []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":0,\"message\":\"duplicate \\\"initialize\\\" received\"}}\n\n"))
		f.Add([]byte(s), false, []byte(`{"code":0}`))
	}
	s := &Server{httpCalls: map[httpCallKey]*httpCall{}}
	f.Fuzz(func(t *testing.T, body []byte, session bool, write []byte) {
		var got []byte
		reached := false
		h := s.fixHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			reached = true
			got, _ = io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(write)
		}))
		req := httptest.NewRequest(http.MethodPost, Path, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		if session {
			req.Header.Set(sessionHeader, "s")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if !reached {
			var m struct {
				Error *struct{ Code int64 } `json:"error"`
			}
			if rec.Code != http.StatusBadRequest || json.Unmarshal(rec.Body.Bytes(), &m) != nil || m.Error == nil {
				t.Fatalf("kept %q from the go-sdk: %d %q", body, rec.Code, rec.Body.String())
			}
			return
		}
		if string(got) != string(body) {
			t.Fatalf("the go-sdk read %q, want %q", got, body)
		}
		if out := rec.Body.Bytes(); string(out) != string(write) {
			if _, data, _, ok := sseData(out); !ok || !json.Valid(data) {
				t.Fatalf("write %q became %q", write, out)
			}
		}
		if len(s.httpCalls) != 0 {
			t.Fatalf("calls left tracked: %v", s.httpCalls)
		}
	})
}
