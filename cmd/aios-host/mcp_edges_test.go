package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// stuckStdout takes the first n bytes and then blocks every write until
// release: the MCP client stopped reading (the pipe is full).
type stuckStdout struct {
	mu      sync.Mutex
	n       int
	release chan struct{}
}

func (s *stuckStdout) Write(p []byte) (int, error) {
	s.mu.Lock()
	if s.n >= len(p) {
		s.n -= len(p)
		s.mu.Unlock()
		return len(p), nil
	}
	s.mu.Unlock()
	<-s.release
	return 0, io.ErrClosedPipe
}

// `aios-host mcp` on SIGTERM while its client reads nothing more: it
// must exit. It hung until SIGKILL, first in the go-sdk's session close
// (waiting for answers stuck in the full pipe), then in run's check of
// standard output (waiting for the lock of a write stuck in the pipe).
func TestMCPExitsWithStdoutStuck(t *testing.T) {
	data, plugins := t.TempDir(), t.TempDir()
	inR, inW := io.Pipe()
	defer inW.Close()
	out := &stuckStdout{n: 64 << 10, release: make(chan struct{})}
	defer close(out.release)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--data", data, "--plugins", plugins, "mcp"}, inR, out, &errb)
		inR.CloseWithError(io.ErrClosedPipe)
	}()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatalf("write to mcp: %v (stderr: %s)", err, errb.String())
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := 1; i <= 200; i++ { // answers well past the 64 KiB the client reads
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i))
	}
	time.Sleep(300 * time.Millisecond)
	cancel() // SIGTERM
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("aios-host mcp did not exit within 10 s of SIGTERM with its stdout stuck; stderr: %s", errb.String())
	}
}

// `run --http` with mcp.http.anonymous_agent printed "MCP (streamable HTTP,
// OAuth bearer tokens) on ..." — but /mcp then serves anyone without a
// token — and said nothing when it listened beyond loopback, where anyone
// who can reach the port calls tools as that agent.
func TestRunAnonymousMCPSaysSo(t *testing.T) {
	e := newEnv(t)
	cfg := writeConfig(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	r := e.startRun("HTTP on http://", "--config", cfg, "--socket", filepath.Join(e.data, "p.sock"), "--http", "0.0.0.0:0")
	log := r.stderr.String()
	r.stop()
	if strings.Contains(log, "OAuth bearer tokens) on") || !strings.Contains(log, `without a token served as agent "mcp"`) {
		t.Errorf("run's log does not say /mcp serves tokenless requests: %s", log)
	}
	if !strings.Contains(log, "level=WARN") || !strings.Contains(log, "not a loopback address") {
		t.Errorf("no warning for tokenless /mcp on 0.0.0.0: %s", log)
	}
}

// `run --http` without mcp.http.issuer (nor anonymous_agent), as a
// newcomer runs it, printed "MCP (streamable HTTP, OAuth bearer tokens)
// on …/mcp", while /mcp then refuses every request: no token can be
// verified without an issuer, and a client without one got "this resource
// needs an OAuth 2.1 bearer token" only. run says so, naming the keys
// that open it, and so does the tokenless request's 401.
func TestRunMCPWithoutIssuerSaysItRefusesAll(t *testing.T) {
	e := newEnv(t)
	r := e.startRun("HTTP on http://", "--socket", filepath.Join(e.data, "p.sock"), "--http", "127.0.0.1:0")
	log := r.stderr.String()
	defer r.stop()
	if strings.Contains(log, "OAuth bearer tokens) on") || !strings.Contains(log, "mcp.http.issuer") || !strings.Contains(log, "mcp.http.anonymous_agent") {
		t.Errorf("run's log does not say /mcp refuses every request without mcp.http.issuer: %s", log)
	}
	m := regexp.MustCompile(`HTTP on (http://\S+)`).FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("no HTTP address in %s", log)
	}
	req, _ := http.NewRequest("POST", m[1]+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "mcp.http.issuer") {
		t.Errorf("tokenless /mcp request: %d %q; want 401 naming mcp.http.issuer", resp.StatusCode, body)
	}
}
