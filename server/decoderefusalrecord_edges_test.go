package server

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestDecodeRefusedCallRecorded: a tools/call refused before it was
// decoded, because it would decode to more than 16 × server.max_body_bytes
// (TooLarge) or because it could not get its share of
// limits.max_decode_bytes (Unavailable, or Cancelled while it waited), had
// no audit record and no call observer (/metrics) saw it, where every
// other refused call is recorded through host.Host.Refuse
// (docs/pipeline.md: every call, refused or not, gets one audit record).
// Each is now recorded as a refused call of its tool (its arguments, which
// the refusal is about not decoding, left out).
func TestDecodeRefusedCallRecorded(t *testing.T) {
	ts := newTestServer(t, "limits:\n  max_decode_bytes: 150000\n", false)
	var mu sync.Mutex
	var seen []host.CallStats
	defer ts.h.OnCall(func(st host.CallStats) {
		mu.Lock()
		seen = append(seen, st)
		mu.Unlock()
	})()
	// 16 × 8 MiB by default: a 7 MiB body of empty objects passes it.
	dear := `{"jsonrpc":"2.0","id":"dear-1","method":"tools/call","params":{"name":"echo","arguments":{"value":[` +
		strings.TrimSuffix(strings.Repeat("{},", 2_000_000), ",") + `]}}}`
	out := ts.s.handleMessage(context.Background(), &session{agent: "cli", transport: "unix"}, []byte(dear))
	if !strings.Contains(string(out), `"dear-1"`) || !strings.Contains(string(out), "TooLarge") {
		t.Fatalf("answer %.300s; want TooLarge with id dear-1", out)
	}
	// The budget held, a large call whose client gives up while it waits.
	pad := strings.Repeat("x", 100_000)
	release, over, err := ts.h.ReserveJSON(context.Background(), []byte(`{"pad":"`+pad+`"}`), 1<<30)
	if over || err != nil {
		t.Fatalf("holding the budget: %v %v", over, err)
	}
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out = ts.s.handleMessage(ctx, &session{agent: "cli", transport: "unix"}, []byte(`{"jsonrpc":"2.0","id":"big-2","method":"tools/call","params":{"name":"echo","arguments":{"value":"`+pad+`"}}}`))
	if !strings.Contains(string(out), `"big-2"`) || !strings.Contains(string(out), "Cancelled") {
		t.Fatalf("answer %.300s; want Cancelled with id big-2", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0].Code != abi.TooLarge || seen[1].Code != abi.Cancelled {
		t.Fatalf("recorded %+v; want echo refused TooLarge, then Cancelled", seen)
	}
	for _, st := range seen {
		if st.Tool != "echo" || st.Caller != "cli" {
			t.Errorf("recorded %+v; want a call of echo by cli", st)
		}
	}
}
