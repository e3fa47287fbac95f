package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMetaTimeoutCountsWait: a tools/call whose large arguments waited for
// limits.max_decode_bytes (up to 10 s) had its _meta timeout_ms counted
// only from when the wait ended, so a call given 300 ms ran 1.5 s after it
// came, with its whole timeout again (found by p163, as over HTTP:
// server.TestHTTPDecodeWaitKeepsTimeout). It counts from when the server
// received the call: one that ran out in the wait is Timeout, not run.
func TestMetaTimeoutCountsWait(t *testing.T) {
	h, s := newTestHost(t, "limits:\n  max_decode_bytes: 150000\n")
	started := make(chan struct{}, 1)
	addSlowTool(t, h, started)
	for deadline := time.Now().Add(5 * time.Second); !contains(s.Tools(), "slow"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("slow not exported")
		}
	}
	cs := connectInMemory(t, s, nil)
	pad := strings.Repeat("x", 100_000)
	first, cancelFirst := context.WithCancel(context.Background())
	defer cancelFirst()
	go func() {
		_, _ = cs.CallTool(first, &mcpsdk.CallToolParams{Name: "slow", Arguments: map[string]any{"pad": pad}})
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("slow did not start")
	}
	go func() {
		time.Sleep(1500 * time.Millisecond)
		cancelFirst()
	}()
	sent := time.Now()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "echo", Arguments: map[string]any{"value": pad},
		Meta: mcpsdk.Meta{MetaTimeoutMS: 300}})
	waited := time.Since(sent)
	if err != nil {
		t.Fatal(err)
	}
	if waited < time.Second {
		t.Fatalf("answered after %v, before the budget was released", waited)
	}
	e, _ := res.Meta[MetaError].(map[string]any)
	if !res.IsError || e["code"] != "Timeout" {
		t.Fatalf("a call given 300 ms answered after %v: isError %v, error %v; want Timeout, the call not run", waited, res.IsError, e)
	}
}
