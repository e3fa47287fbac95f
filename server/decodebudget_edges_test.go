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

// TestLargeMessagesShareDecodeBudget: each message was bounded in what it
// may decode to, their sum was not (a probe: 16 concurrent 4 MiB messages
// of nested arrays on one socket, +1.09 GB of heap). Large messages now
// share limits.max_decode_bytes while they are handled: one that does not
// fit waits until another is answered, and small ones never wait.
func TestLargeMessagesShareDecodeBudget(t *testing.T) {
	ts := newTestServer(t, "limits:\n  max_decode_bytes: 150000\n", false)
	pad := strings.Repeat("x", 100_000)
	first, cancelFirst := context.WithCancel(context.Background())
	defer cancelFirst()
	slowDone := make(chan error, 1)
	go func() {
		slowDone <- dial(t, ts).Call(first, "tools/call", map[string]any{"name": "slow", "arguments": map[string]any{"pad": pad}}, nil)
	}()
	ts.waitSlow(t, 1)

	echoDone := make(chan error, 1)
	go func() {
		var out any
		echoDone <- dial(t, ts).Call(context.Background(), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": pad}}, &out)
	}()
	// A small call goes through while the large one waits.
	var out any
	if err := dial(t, ts).Call(context.Background(), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": "small"}}, &out); err != nil {
		t.Fatalf("a small call while the budget is held: %v", err)
	}
	select {
	case err := <-echoDone:
		t.Fatalf("a second large message was handled while the first held the budget: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	cancelFirst()
	<-slowDone
	select {
	case err := <-echoDone:
		if err != nil {
			t.Fatalf("the waiting large message, once the first was answered: %v", err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("the waiting large message was not handled after the first was answered")
	}
}

// TestDecodeBudgetRefusalHasID: a large request refused for want of
// limits.max_decode_bytes (after its 10 s wait) is answered Unavailable
// with its own id, so a client with several in flight knows which one to
// send again.
func TestDecodeBudgetRefusalHasID(t *testing.T) {
	ts := newTestServer(t, "limits:\n  max_decode_bytes: 150000\n", false)
	pad := strings.Repeat("x", 100_000)
	first, cancelFirst := context.WithCancel(context.Background())
	defer cancelFirst()
	// A tool that holds its call until cancelled (slow ends at 10 s,
	// with the wait).
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
	<-started
	conn, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, `{"jsonrpc":"2.0","id":"big-7","method":"tools/call","params":{"name":"echo","arguments":{"value":"`+pad+`"}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReaderSize(conn, 1<<20).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	e, _ := m["error"].(map[string]any)
	if m["id"] != "big-7" || e == nil || !strings.Contains(e["message"].(string), "limits.max_decode_bytes") {
		t.Fatalf("answer %.300s; want an error naming limits.max_decode_bytes with id big-7", line)
	}
	if d, _ := e["data"].(map[string]any); d == nil || d["code"] != "Unavailable" {
		t.Fatalf("answer %.300s; want data.code Unavailable", line)
	}
}
