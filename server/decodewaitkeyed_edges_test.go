package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestDecodeBudgetWaitDoesNotStopTheConnection: a large request waiting
// for its share of limits.max_decode_bytes on a socket was keyed for
// notifications/cancelled only once it had its share, and the connection
// reads the next message only after that: for up to 10 s nothing else sent
// on the connection was read (a small call waited behind it, though small
// messages never wait for the budget), and a cancel of the waiting request
// was not read until it had been refused Unavailable. Now the request is
// keyed before it waits: the small call is answered at once, and the
// cancel ends the wait with a Cancelled answer carrying the request's id.
func TestDecodeBudgetWaitDoesNotStopTheConnection(t *testing.T) {
	ts := newTestServer(t, "limits:\n  max_decode_bytes: 150000\n", false)
	pad := strings.Repeat("x", 100_000)
	first, cancelFirst := context.WithCancel(context.Background())
	defer cancelFirst()
	started := make(chan struct{}, 1)
	p := native.New(abi.ProviderInfo{ID: "org.test.block"})
	p.MustRegister(abi.ToolDef{Name: "block", Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, _ any, _ abi.Env) (any, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	if err := ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = dial(t, ts).Call(first, "tools/call", map[string]any{"name": "block", "arguments": map[string]any{"pad": pad}, "timeout_ms": 60000}, nil)
	}()
	<-started // it holds the budget

	conn, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(60 * time.Second))
	r := bufio.NewReaderSize(conn, 1<<20)
	read := func() map[string]any {
		t.Helper()
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if _, err := io.WriteString(conn, `{"jsonrpc":"2.0","id":"big-8","method":"tools/call","params":{"name":"echo","arguments":{"value":"`+pad+`"}}}`+"\n"+
		`{"jsonrpc":"2.0","id":"small-1","method":"tools/call","params":{"name":"echo","arguments":{"value":"small"}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if m := read(); m["id"] != "small-1" {
		t.Fatalf("first answer %v; want small-1's (a small call does not wait behind a large one waiting for limits.max_decode_bytes)", m)
	}
	if _, err := io.WriteString(conn, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"big-8"}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	m := read()
	e, _ := m["error"].(map[string]any)
	d, _ := e["data"].(map[string]any)
	if m["id"] != "big-8" || d == nil || d["code"] != "Cancelled" {
		t.Fatalf("answer %v; want big-8 answered Cancelled once its client cancelled it", m)
	}
	if msg, _ := e["message"].(string); !strings.Contains(msg, "limits.max_decode_bytes") || !strings.Contains(msg, "cancel") {
		t.Fatalf("message %q; want it to say the request was cancelled while it waited for limits.max_decode_bytes", msg)
	}
}
