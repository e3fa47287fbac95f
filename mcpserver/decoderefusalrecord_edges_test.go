package mcpserver

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestDecodeRefusedArgumentsRecorded: a tools/call whose large arguments
// were refused before they were decoded (no share of
// limits.max_decode_bytes: Unavailable, or Cancelled while it waited; or
// past 32 × limits.max_params_bytes decoded) had no audit record and no
// call observer (/metrics) saw it, where a call refused for
// mcp.http.max_calls_per_session is recorded through host.Host.Refuse
// (docs/pipeline.md: every call, refused or not, gets one audit record).
// It is now recorded as a refused call of its tool, arguments left out.
func TestDecodeRefusedArgumentsRecorded(t *testing.T) {
	h, s := newTestHost(t, "limits:\n  max_decode_bytes: 150000\n")
	var mu sync.Mutex
	var seen []host.CallStats
	defer h.OnCall(func(st host.CallStats) {
		mu.Lock()
		seen = append(seen, st)
		mu.Unlock()
	})()
	pad := strings.Repeat("x", 100_000)
	release, over, err := h.ReserveJSON(context.Background(), []byte(`{"pad":"`+pad+`"}`), 1<<30)
	if over || err != nil {
		t.Fatalf("holding the budget: %v %v", over, err)
	}
	defer release()
	cs := connectInMemory(t, s, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, _ = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "echo", Arguments: map[string]any{"value": pad}})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no call recorded for the call refused while it waited for limits.max_decode_bytes")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0].Tool != "echo" || (seen[0].Code != abi.Cancelled && seen[0].Code != abi.Unavailable) {
		t.Fatalf("recorded %+v; want one call of echo refused Cancelled (or Unavailable)", seen)
	}
}
