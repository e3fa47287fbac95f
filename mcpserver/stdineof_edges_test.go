package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/host"
)

// An MCP client ends a stdio session by closing the server's standard
// input (the MCP stdio shutdown). The go-sdk cancels the calls in flight
// with the read error as cause, io.EOF, and that bare "EOF" became the
// Cancelled call's message in its audit record ("EOF (tool slowpy: the
// call was cancelled; …)"): nothing said the client had gone.
func TestStdinEOFCancelSaysClientClosed(t *testing.T) {
	h, s := newTestHostWith(t, "", func(o *host.Options) {
		aw, err := audit.Open(o.Config.AuditPath(), audit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		o.Audit = aw
	})
	started := make(chan struct{}, 1)
	addSlowTool(t, h, started)
	waitExported(t, s, "slow")
	inR, inW := io.Pipe()
	done := make(chan error, 1)
	// Answers are waited for at the end of input (mcp.stdin_drain) for 300 ms
	// here, then the call still running is cancelled.
	go func() { done <- s.Run(context.Background(), newStdioTransport(inR, io.Discard, 300*time.Millisecond)) }()
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`,
	} {
		if _, err := io.WriteString(inW, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the tool did not start")
	}
	_ = inW.Close() // the client ends the session
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its input ended")
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	var msg string
	for _, r := range auditRecords(t, h) {
		if r["tool"] == "slow" {
			msg, _ = r["error"].(string)
		}
	}
	if msg == "" {
		t.Fatal("no audit record of the cancelled call, or one without an error")
	}
	if strings.HasPrefix(msg, "EOF") || !strings.Contains(msg, "client closed") {
		t.Fatalf("the record of a call cancelled because the MCP client closed the session says %q; want it to say the client closed it", msg)
	}
}

// A script pipes its requests into `aios-host mcp` and closes its end
// (`printf … | aios-host mcp`): stdin ends right after the last request.
// The go-sdk cancelled the requests in flight at the end of input and
// wrote nothing after it, so no request was answered, not even
// initialize. The requests read before the end are answered now (for at
// most mcp.stdin_drain), and then Run returns.
func TestStdinEOFAnswersRequestsRead(t *testing.T) {
	_, s := newTestHost(t, "")
	waitExported(t, s, "echo")
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"value":"piped"}}}`,
	}, "\n") + "\n"
	var out lockedOut
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), s.Stdio(strings.NewReader(in), &out)) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its input ended")
	}
	answered := map[float64]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		if id, ok := m["id"].(float64); ok {
			answered[id] = line
		}
	}
	for _, id := range []float64{1, 2, 3} {
		if answered[id] == "" {
			t.Fatalf("request %v was not answered after stdin ended; output:\n%s", id, out.String())
		}
	}
	if !strings.Contains(answered[3], "piped") || strings.Contains(answered[3], `"isError":true`) {
		t.Fatalf("the echo call answered %s", answered[3])
	}
}

// lockedOut is a bytes.Buffer written from several goroutines.
type lockedOut struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedOut) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedOut) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
