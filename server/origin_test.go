package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestOriginInAuditRecords: a socket peer's calls are recorded with its uid
// as principal, an HTTP client's with the name of its token
// (server.tokens[].name, default AGENT#INDEX).
func TestOriginInAuditRecords(t *testing.T) {
	ts := newTestServer(t, "audit: {}\n", true)
	ctx := context.Background()
	if err := dial(t, ts).Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": 1}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{testToken} {
		req, _ := http.NewRequest("POST", ts.url+"/rpc", bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"value":2}}}`)))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || bytes.Contains(body, []byte(`"error"`)) {
			t.Fatalf("HTTP call with token %s: %d %s", tok, resp.StatusCode, body)
		}
	}
	if err := ts.h.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(ts.dir, "data", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct{ Caller, Principal, Remote string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Remote != "" {
			// The HTTP client's TCP peer address, from loopback.
			host, port, err := net.SplitHostPort(r.Remote)
			if err != nil || host != "127.0.0.1" || port == "" {
				t.Errorf("remote %q, want 127.0.0.1:PORT", r.Remote)
			}
			r.Remote = "127.0.0.1"
		}
		got = append(got, strings.TrimSpace(r.Caller+" "+r.Principal+" "+r.Remote))
	}
	want := []string{"cli uid:" + strconv.Itoa(os.Getuid()), "peer token:peer#0 127.0.0.1"}
	if len(got) != len(want) {
		t.Fatalf("records %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d: %q, want %q", i+1, got[i], want[i])
		}
	}
}

// TestTokenNames: a token's name defaults to AGENT#INDEX; two tokens of one
// name are refused, naming both.
func TestTokenNames(t *testing.T) {
	cfg, err := config.Parse([]byte("agents: {a: {}, b: {}}\nserver:\n  tokens:\n    - {agent: a, token: x1}\n    - {agent: b, token: x2, name: laptop}\n"), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.Tokens[0].Name != "a#0" || c.Tokens[1].Name != "laptop" {
		t.Fatalf("names %q %q, want a#0 laptop", c.Tokens[0].Name, c.Tokens[1].Name)
	}
	cfg, err = config.Parse([]byte("agents: {a: {}, b: {}}\nserver:\n  tokens:\n    - {agent: a, token: x1, name: b#1}\n    - {agent: b, token: x2}\n"), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(cfg); err == nil || !strings.Contains(err.Error(), `server.tokens[1]: name "b#1" is also server.tokens[0]'s`) {
		t.Fatalf("duplicate names: %v", err)
	}
}
