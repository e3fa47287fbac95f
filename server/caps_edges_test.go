package server

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
)

// One bearer token listed for two agents named whichever came last: a
// token meant for a reader acted as the other agent. It is refused.
func TestDuplicateTokenRefused(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PROBE_TOK", "same-secret")
	doc := "plugins: []\ndata: " + filepath.Join(dir, "data") + "\naudit: {disabled: true}\n" +
		"agents:\n  cli: {grants: ['CallTool(*)', 'ReadSpace(*)']}\n  reader: {grants: ['CallTool(echo)']}\n" +
		"server:\n  tokens: [{agent: reader, token: same-secret}, {agent: cli, token_env: PROBE_TOK}]\n"
	cfg, err := config.Parse([]byte(doc), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s, err := New(Options{Host: h, Config: cfg})
	if err == nil {
		s.Close()
		t.Fatal("a token given to two agents was accepted")
	}
	if !strings.Contains(err.Error(), "reader") || !strings.Contains(err.Error(), "cli") || strings.Contains(err.Error(), "same-secret") {
		t.Errorf("error should name both agents and not the token: %v", err)
	}
}

// Where a provider was loaded from (a path on the host) is told to local
// socket peers only, as tools/list does: aios/registry.info too.
func TestInfoSourceNotOverHTTP(t *testing.T) {
	ts := newTestServer(t, "", true)
	status, body := httpPost(t, ts.url+"/rpc", testToken, "application/json",
		`{"jsonrpc":"2.0","id":1,"method":"aios/registry.info","params":{"adapter_id":"org.test.native"}}`)
	if status != 200 || !strings.Contains(string(body), `"org.test.native"`) || strings.Contains(string(body), `"source"`) {
		t.Fatalf("HTTP registry.info: %d %s", status, body)
	}
	c := dial(t, ts)
	var info struct {
		Status struct{ Source string } `json:"status"`
	}
	if err := c.Call(context.Background(), "aios/registry.info", map[string]any{"adapter_id": "org.test.native"}, &info); err != nil {
		t.Fatal(err)
	}
	if info.Status.Source != "test" {
		t.Fatalf("socket registry.info source %q", info.Status.Source)
	}
}

// A token read from the environment keeps no trailing newline (as one read
// from token_file): `export T=$(cat file)` keeps none, but
// `T="$(printf 'tok\n')"`-style values and systemd EnvironmentFile lines
// can; the presented token is trimmed, so such a token never matched.
func TestTokenEnvTrimmed(t *testing.T) {
	t.Setenv("PROBE_TOKEN_NL", "tok-123\n")
	ts := buildServerTokens(t, "tokens: [{agent: reader, token_env: PROBE_TOKEN_NL}]")
	status, body := httpPost(t, ts.url+"/rpc", "tok-123", "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if status != 200 {
		t.Fatalf("token from the environment with a final newline: %d %s", status, body)
	}
}

// buildServerTokens is a server with the given server.tokens line only.
func buildServerTokens(t *testing.T, tokens string) *testServer {
	t.Helper()
	dir := t.TempDir()
	doc := "plugins: []\ndata: " + filepath.Join(dir, "data") + "\naudit: {disabled: true}\n" +
		"agents:\n  cli: {grants: ['CallTool(*)']}\n  reader: {grants: ['CallTool(*)']}\n" +
		"server:\n  " + tokens + "\n"
	cfg, err := config.Parse([]byte(doc), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	s, err := New(Options{Host: h, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.ServeHTTPListener(ln)
	return &testServer{h: h, s: s, url: "http://" + ln.Addr().String()}
}
