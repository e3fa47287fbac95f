package server

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestBatchCallNotRunRecorded: a tools/call of a batch left unrun because
// the batch's answers had passed server.max_batch_answer_bytes was
// answered TooLarge "this request was not run" with no audit record and
// no call observer (/metrics) seeing it, where a call a front end refuses
// by a limit of its own is recorded through host.Host.Refuse
// (docs/pipeline.md: every call, refused or not, gets one audit record).
// Each is now recorded as a refused call of its tool, code TooLarge.
func TestBatchCallNotRunRecorded(t *testing.T) {
	ts := newTestServer(t, "  max_batch_answer_bytes: 3000\n", false)
	var mu sync.Mutex
	var seen []host.CallStats
	defer ts.h.OnCall(func(st host.CallStats) {
		mu.Lock()
		seen = append(seen, st)
		mu.Unlock()
	})()
	const n = 40
	var reqs []string
	for i := range n {
		reqs = append(reqs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"value":"%s"}}}`, i, strings.Repeat("x", 600)))
	}
	batch := rawExchange(t, ts, "["+strings.Join(reqs, ",")+"]")["batch"].([]any)
	notRun := 0
	for _, a := range batch {
		a := a.(map[string]any)
		if errCode(a) == 0 {
			continue
		}
		details, _ := a["error"].(map[string]any)["data"].(map[string]any)["details"].(map[string]any)
		if details["ran"] == false {
			notRun++
		}
	}
	if notRun == 0 {
		t.Fatal("no member of the batch was left unrun (limit 3000 bytes)")
	}
	mu.Lock()
	defer mu.Unlock()
	served, refused := 0, 0
	for _, st := range seen {
		switch st.Code {
		case "":
			served++
		case abi.TooLarge:
			refused++
			if st.Tool != "echo" || st.Caller != "cli" {
				t.Errorf("recorded %+v, want a call of echo by cli", st)
			}
		default:
			t.Errorf("recorded %+v", st)
		}
	}
	if refused != notRun || served != n-notRun {
		t.Fatalf("%d members not run; recorded %d refused TooLarge and %d served of %d", notRun, refused, served, n)
	}
}
