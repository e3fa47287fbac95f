package mcpserver

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestPOSTDroppedThenCancelled: a client that drops the POST
// carrying a tools/call does not cancel it by that (MCP 2025-06-18:
// disconnection is not cancellation), but its notifications/cancelled,
// sent after the drop, still ends the call, recorded Cancelled.
func TestPOSTDroppedThenCancelled(t *testing.T) {
	s, base := anonHTTP(t, "")
	defer s.Close()
	started := make(chan struct{}, 1)
	addSlowTool(t, s.h, started)
	for deadline := time.Now().Add(5 * time.Second); !contains(s.Tools(), "slow"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("slow not exported")
		}
	}
	ended := make(chan host.CallStats, 4)
	defer s.h.OnCall(func(st host.CallStats) { ended <- st })()
	sid := initSession(t, base)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(sessionHeader, sid)
	req.Header.Set(versionHeader, "2025-06-18")
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool did not start")
	}
	cancel() // the client drops the POST: its connection closes
	select {
	case st := <-ended:
		t.Fatalf("the call ended (%q) when its POST was dropped; MCP says disconnection is not cancellation", st.Code)
	case <-time.After(300 * time.Millisecond):
	}
	if a := post(t, base, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"gave up"}}`,
		map[string]string{sessionHeader: sid, versionHeader: "2025-06-18"}); a.status != http.StatusAccepted {
		t.Fatalf("notifications/cancelled: %d %s", a.status, a.body)
	}
	select {
	case st := <-ended:
		if st.Code != abi.Cancelled {
			t.Errorf("call ended with %q, want Cancelled", st.Code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("notifications/cancelled of a call whose POST was dropped did not end it (5 s later it still ran)")
	}
}
