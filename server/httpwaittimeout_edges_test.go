package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestHTTPDecodeWaitKeepsTimeout: an HTTP tools/call that waited for
// limits.max_decode_bytes (a large message while others held the budget,
// up to 10 s) had its timeout_ms counted only from when it was decoded, so
// a client that asked for an answer within 300 ms got one seconds later,
// from a call run with its whole timeout again (the socket counts it from
// when the message was read: TestSlotWaitKeepsTimeout). It counts from when
// the body was received: a call whose timeout ran out in the wait is not
// run and is answered Timeout.
func TestHTTPDecodeWaitKeepsTimeout(t *testing.T) {
	ts := newTestServer(t, "limits:\n  max_decode_bytes: 150000\n", true)
	pad := strings.Repeat("x", 100_000)
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
	ran := make(chan struct{}, 1)
	q := native.New(abi.ProviderInfo{ID: "org.test.mark"})
	q.MustRegister(abi.ToolDef{Name: "mark", Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) {
			ran <- struct{}{}
			return "ran", nil
		})
	if err := ts.h.AddProvider(context.Background(), q, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	first, cancelFirst := context.WithCancel(context.Background())
	defer cancelFirst()
	go func() {
		_ = dial(t, ts).Call(first, "tools/call", map[string]any{"name": "block", "arguments": map[string]any{"pad": pad}, "timeout_ms": 60000}, nil)
	}()
	<-started
	// The budget is held: release it after the HTTP call's timeout has
	// run out while it waits.
	go func() {
		time.Sleep(1500 * time.Millisecond)
		cancelFirst()
	}()
	sent := time.Now()
	status, body := httpPost(t, ts.url+"/rpc", testToken, "application/json",
		`{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"mark","arguments":{"pad":"`+pad+`"},"timeout_ms":300}}`)
	waited := time.Since(sent)
	if waited < time.Second {
		t.Fatalf("answered after %v, before the budget was released (status %d, %.300s)", waited, status, body)
	}
	select {
	case <-ran:
		t.Errorf("the call ran %v after it was sent, past its timeout_ms of 300", waited)
	default:
	}
	if !strings.Contains(string(body), `"Timeout"`) || !strings.Contains(string(body), "mark") {
		t.Fatalf("answer %.400s; want Timeout naming the call of mark", body)
	}
}
