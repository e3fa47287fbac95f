package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/host"
)

// TestDecodeRefusedArgumentsRecordParent: a tools/call refused before its
// large arguments were decoded (no share of limits.max_decode_bytes) was
// recorded without the parent its _meta["org.aios/parent_id"] gave, so
// the refusal could not be joined to the call that made it in the
// forwarding host's audit log, as every other record of such a call can.
func TestDecodeRefusedArgumentsRecordParent(t *testing.T) {
	h, s := newTestHost(t, "limits:\n  max_decode_bytes: 150000\n")
	parents := make(chan string, 4)
	defer h.OnCall(func(st host.CallStats) { parents <- st.ParentID })()
	pad := strings.Repeat("x", 100_000)
	release, over, err := h.ReserveJSON(context.Background(), []byte(`{"pad":"`+pad+`"}`), 1<<30)
	if over || err != nil {
		t.Fatalf("holding the budget: %v %v", over, err)
	}
	defer release()
	cs := connectInMemory(t, s, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, _ = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "echo", Meta: mcpsdk.Meta{MetaParentID: "mxa-7"}, Arguments: map[string]any{"value": pad}})
	select {
	case p := <-parents:
		if p != "client:mxa-7" {
			t.Errorf("the refused call's parent is %q; want client:mxa-7", p)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no call recorded for the call refused while it waited for limits.max_decode_bytes")
	}
}
