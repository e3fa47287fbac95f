package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// A provider's schema is the provider's to write: a parameter schema the
// go-sdk's AddTool panics on (an x-mcp-header annotation on an object
// property, or one that is not a header name) must cost that tool its
// export, not crash the host (sync runs in a goroutine of its own).
func TestProbeBadHeaderAnnotationDoesNotCrash(t *testing.T) {
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
func TestProbeDeepArgumentsErrorSaysWhy(t *testing.T) {
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
func TestProbeRunReturnsWithStdoutBlocked(t *testing.T) {
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
