package mcpserver

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// tokenFor mints a token of is for subject with scope.
func (is *issuer) tokenFor(t *testing.T, subject, scope string) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: is.key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader(jose.HeaderKey("kid"), is.kid))
	if err != nil {
		t.Fatal(err)
	}
	c := jwt.Claims{Issuer: is.url, Subject: subject, Audience: jwt.Audience{"http://aios.test/mcp"},
		IssuedAt: jwt.NewNumericDate(time.Now().Add(-time.Minute)), Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))}
	tok, err := jwt.Signed(sig).Claims(c).Claims(map[string]any{"scope": scope}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// A session belongs to the user who opened it: the go-sdk answers another
// user's request on it with 403. That user's notifications/cancelled must
// not suppress the owner's response either.
func TestHTTPCancelOfAnotherUsersSession(t *testing.T) {
	is := newIssuer(t)
	s, base := newHTTPServer(t, is, "")
	started := make(chan struct{}, 1)
	p := native.New(abi.ProviderInfo{ID: "org.test.slowish"})
	p.MustRegister(abi.ToolDef{Name: "slowish", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, _ any, _ abi.Env) (any, error) {
			started <- struct{}{}
			time.Sleep(700 * time.Millisecond)
			return "done", nil
		})
	if err := s.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	waitExported(t, s, "slowish")
	alice := map[string]string{"Authorization": "Bearer " + is.tokenFor(t, "alice", "aios.tools")}
	a := post(t, base, initBody, alice)
	sid := a.header.Get(sessionHeader)
	if a.status != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", a.status, a.body)
	}
	alice[sessionHeader], alice[versionHeader] = sid, "2025-06-18"
	if a := post(t, base, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, alice); a.status != 202 {
		t.Fatalf("initialized: %d %s", a.status, a.body)
	}
	got := make(chan httpAnswer, 1)
	go func() {
		got <- post(t, base, `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"slowish","arguments":{}}}`, alice)
	}()
	select {
	case <-started:
	case a := <-got:
		t.Fatalf("the call ended before it started: %d %q", a.status, a.body)
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not start")
	}
	mallory := map[string]string{"Authorization": "Bearer " + is.tokenFor(t, "mallory", "aios.tools"),
		sessionHeader: sid, versionHeader: "2025-06-18"}
	if a := post(t, base, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}}`, mallory); a.status != http.StatusForbidden {
		t.Fatalf("another user's cancel on the session: %d %s", a.status, a.body)
	}
	select {
	case a := <-got:
		if !strings.Contains(a.body, `"id":"c1"`) || !strings.Contains(a.body, "done") {
			t.Fatalf("the owner's call lost its response to another user's refused cancel: %d %q", a.status, a.body)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer")
	}
}

// The go-sdk reads a numeric id as a float64: it answered id 1.5 as 1 and
// 9007199254740993 as 9007199254740992 (a client may take the answer for
// another of its requests), and on stdio took id null for a notification
// and never answered. Such requests are refused with their id as sent.
func TestUnanswerableIDs(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	_, base := anonHTTP(t, "")
	sid := initSession(t, base)
	h := map[string]string{sessionHeader: sid, versionHeader: "2025-06-18"}
	for _, id := range []string{"1.5", "9007199254740993", "-9007199254740993", "1e2", "null"} {
		req := `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`
		ss.send(req)
		l := ss.read(2 * time.Second)
		if !strings.Contains(l, `"id":`+id+`,"error":{"code":-32600`) {
			t.Errorf("stdio %s: %q", req, l)
		}
		a := post(t, base, req, h)
		if a.status != http.StatusBadRequest || !strings.Contains(a.body, `"id":`+id+`,"error":{"code":-32600`) {
			t.Errorf("http %s: %d %q", req, a.status, a.body)
		}
	}
	for _, id := range []string{"9007199254740992", "-3", "0", `"1.5"`} {
		req := `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`
		ss.send(req)
		if l := ss.read(2 * time.Second); l != `{"jsonrpc":"2.0","id":`+id+`,"result":{}}` {
			t.Errorf("stdio %s: %q", req, l)
		}
		if a := post(t, base, req, h); a.status != http.StatusOK || !strings.Contains(a.body, `"id":`+id+`,"result":{}`) {
			t.Errorf("http %s: %d %q", req, a.status, a.body)
		}
	}
	ss.send(`[{"jsonrpc":"2.0","id":1.5,"method":"ping"}]`)
	if l := ss.read(2 * time.Second); !strings.Contains(l, `"code":-32600`) {
		t.Errorf("stdio batch: %q", l)
	}
}

// A tools/call's arguments are untrusted input: 2 MiB of [{},{},…] decode
// to 150 MiB before the host's max_params_bytes (1 MiB here) refuses them.
// They are refused (TooLarge) before they are decoded.
func TestArgumentsDecodeBudget(t *testing.T) {
	_, s := newTestHost(t, "limits:\n  max_params_bytes: 1048576\n")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	var b []byte
	b = append(b, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"value":[`...)
	for i := 0; i < 700_000; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{', '}')
	}
	b = append(b, "]}}}"...)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	ss.send(string(b))
	l := ss.read(60 * time.Second)
	runtime.ReadMemStats(&ms)
	if got := ms.TotalAlloc - before; !strings.Contains(l, "TooLarge") || got > 100<<20 { // the line's copies: 40 MiB
		t.Fatalf("%.300q after allocating %d MiB", l, got>>20)
	}
}
