package mcpserver

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// newHTTPServer serves s on loopback with OAuth configured for is.
func newHTTPServer(t testing.TB, is *issuer, extra string) (*Server, string) {
	t.Helper()
	cfg := fmt.Sprintf(`agents:
  admin:
    grants: ['CallTool(*)', 'ReadSpace(*)']
mcp:
  http:
    resource: http://aios.test/mcp
    issuer: %s
    jwks_url: %s
    scopes:
      - {scope: aios.admin, agent: admin}
      - {scope: aios.tools, agent: mcp}
%s`, is.url, is.jwks, extra)
	_, s := newTestHost(t, cfg)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, srv.URL
}

func TestHTTPAuthRefusals(t *testing.T) {
	is := newIssuer(t)
	_, base := newHTTPServer(t, is, "")
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	const aud = "http://aios.test/mcp"
	const meta = `resource_metadata="http://aios.test/.well-known/oauth-protected-resource/mcp"`
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	tests := []struct {
		name   string
		auth   string
		status int
		header []string // substrings of WWW-Authenticate
	}{
		{"missing token", "", 401, []string{"Bearer ", meta}},
		{"not bearer", "Basic abc", 401, []string{`error="invalid_request"`, meta}},
		{"malformed token", "Bearer not.a.jwt", 401, []string{`error="invalid_token"`, meta}},
		{"expired", "Bearer " + is.token(t, tokenOpts{aud: aud, scope: "aios.tools", exp: -time.Hour}), 401, []string{`error="invalid_token"`, "expired", meta}},
		{"no exp", "Bearer " + is.token(t, tokenOpts{aud: aud, scope: "aios.tools", noExp: true}), 401, []string{`error="invalid_token"`, "no exp"}},
		{"no sub", "Bearer " + is.token(t, tokenOpts{aud: aud, scope: "aios.tools", noSub: true}), 401, []string{`error="invalid_token"`, "no sub"}},
		{"wrong audience", "Bearer " + is.token(t, tokenOpts{aud: "http://elsewhere/mcp", scope: "aios.tools"}), 401, []string{`error="invalid_token"`, "audience", meta}},
		{"wrong issuer", "Bearer " + is.token(t, tokenOpts{aud: aud, iss: "https://evil.example", scope: "aios.tools"}), 401, []string{`error="invalid_token"`, "issuer"}},
		{"wrong key", "Bearer " + is.token(t, tokenOpts{aud: aud, scope: "aios.tools", signer: other}), 401, []string{`error="invalid_token"`, "signature"}},
		{"no mapped scope", "Bearer " + is.token(t, tokenOpts{aud: aud, scope: "email"}), 403, []string{`error="insufficient_scope"`, `scope="aios.admin aios.tools"`}},
		{"valid", "Bearer " + is.token(t, tokenOpts{aud: aud, scope: "aios.tools"}), 200, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, base+Path, strings.NewReader(init))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, body, tc.status)
			}
			wa := resp.Header.Get("WWW-Authenticate")
			for _, h := range tc.header {
				if !strings.Contains(wa, h) {
					t.Errorf("WWW-Authenticate %q lacks %q", wa, h)
				}
			}
		})
	}
}

func TestHTTPProtectedResourceMetadata(t *testing.T) {
	is := newIssuer(t)
	_, base := newHTTPServer(t, is, "")
	for _, p := range []string{MetadataPath, MetadataPath + Path} {
		resp, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		var md map[string]any
		err = json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", p, resp.StatusCode, err)
		}
		if md["resource"] != "http://aios.test/mcp" || fmt.Sprint(md["authorization_servers"]) != "["+is.url+"]" ||
			fmt.Sprint(md["scopes_supported"]) != "[aios.admin aios.tools]" {
			t.Errorf("%s: %v", p, md)
		}
	}
}

// TestHTTPClientWithToken runs the go-sdk client over streamable HTTP with
// tokens of two scopes: the scope picks the agent, so the admin may call
// what the mcp agent may not.
func TestHTTPClientWithToken(t *testing.T) {
	is := newIssuer(t)
	_, base := newHTTPServer(t, is, "")
	connect := func(scope string) *mcpsdk.ClientSession {
		hc := &http.Client{Transport: bearer{base: http.DefaultTransport, token: is.token(t, tokenOpts{aud: "http://aios.test/mcp", scope: scope})}}
		cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t"}, nil).Connect(context.Background(),
			&mcpsdk.StreamableClientTransport{Endpoint: base + Path, HTTPClient: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	for _, tc := range []struct {
		scope   string
		isError bool
	}{{"aios.tools", true}, {"openid aios.admin", false}} {
		cs := connect(tc.scope)
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "needs-space", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError != tc.isError {
			t.Errorf("scope %q: needs-space isError = %v, want %v (%v)", tc.scope, res.IsError, tc.isError, res.Content)
		}
		res, err = cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": "x"}})
		if err != nil || !res.IsError || !strings.HasPrefix(res.Content[0].(*mcpsdk.TextContent).Text, "InvalidParams") {
			t.Errorf("bad args over HTTP: %v %+v", err, res)
		}
	}
}

// TestHTTPMalformedJSONRPC posts broken bodies with a valid token: each is
// refused with a 4xx and the endpoint keeps serving.
func TestHTTPMalformedJSONRPC(t *testing.T) {
	is := newIssuer(t)
	_, base := newHTTPServer(t, is, "")
	tok := is.token(t, tokenOpts{aud: "http://aios.test/mcp", scope: "aios.tools"})
	post := func(body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, base+Path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	for _, body := range []string{
		`{"jsonrpc":`,
		`[]`,
		`{"jsonrpc":"1.0","id":1,"method":"initialize"}`,
		`"just a string"`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"value":1}}}`, // before initialize
	} {
		code, b := post(body)
		if (code < 400 || code >= 500) && !(code == 200 && strings.Contains(b, `"error":`)) {
			t.Errorf("body %s: status %d (%s), want 4xx or a JSON-RPC error", body, code, b)
		}
	}
	if code, b := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); code != 200 {
		t.Fatalf("initialize after bad input: %d %s", code, b)
	}
}

func TestHTTPAnonymousAgent(t *testing.T) {
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t"}, nil).Connect(context.Background(),
		&mcpsdk.StreamableClientTransport{Endpoint: srv.URL + Path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "echo", Arguments: map[string]any{"value": "x"}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
}

// FuzzVerifyToken feeds arbitrary bearer tokens: verification never panics
// and never accepts what the issuer did not sign. The same bytes written
// otherwise in base64url (the unused low bits of a segment's last
// character set: RFC 4648 §3.5 lets a decoder accept them, as go-jose
// does) are what the issuer signed.
func FuzzVerifyToken(f *testing.F) {
	is := newIssuer(f)
	good := is.token(f, tokenOpts{aud: "http://aios.test/mcp", scope: "s"})
	// good with the lowest bit of its last character set: an ES256
	// signature is 64 bytes, 86 characters whose last holds 2 bits.
	const b64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	alias := good[:len(good)-1] + string(b64url[strings.IndexByte(b64url, good[len(good)-1])^1])
	for _, s := range []string{good, alias, "", "a.b.c", "eyJhbGciOiJub25lIn0.e30.", good[:len(good)-3] + "AAA", strings.Repeat("x", 100)} {
		f.Add(s)
	}
	v := newVerifier(HTTPConfig{Issuer: is.url, JWKSURL: is.jwks, Agent: "mcp"}, func() string { return "http://aios.test/mcp" }, nil)
	f.Fuzz(func(t *testing.T, tok string) {
		id, err := v.verify(context.Background(), tok)
		if err == nil && !sameJWS(tok, good) {
			t.Fatalf("accepted %q as %+v", tok, id)
		}
	})
}

// sameJWS says whether the compact JWS a holds the bytes b does: the
// same three segments once base64url-decoded.
func sameJWS(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	if len(as) != 3 || len(bs) != 3 {
		return false
	}
	for i := range as {
		x, err1 := base64.RawURLEncoding.DecodeString(as[i])
		y, err2 := base64.RawURLEncoding.DecodeString(bs[i])
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}
