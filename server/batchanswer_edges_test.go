package server

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aios-host/aios-host/host"
)

// TestBatchAnswerLeftOutSaysTheRequestRan: when the answers of a batch
// passed server.max_batch_answer_bytes, a request that had already run
// (a tools/call whose effects happened, recorded OK in the audit log) had
// its answer replaced by the same TooLarge error as a request not run,
// "send this request again", so a client following it ran the call twice
// (found by p120). Now the error says which is which, in its message and
// in data.details.ran.
func TestBatchAnswerLeftOutSaysTheRequestRan(t *testing.T) {
	ts := newTestServer(t, "  max_batch_answer_bytes: 3000\n", false)
	var calls atomic.Int32
	defer ts.h.OnCall(func(host.CallStats) { calls.Add(1) })()
	const n = 40
	var reqs []string
	for i := range n {
		reqs = append(reqs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"value":"%s"}}}`, i, strings.Repeat("x", 100)))
	}
	batch := rawExchange(t, ts, "["+strings.Join(reqs, ",")+"]")["batch"].([]any)
	if len(batch) != n {
		t.Fatalf("%d answers, want %d", len(batch), n)
	}
	ok, ran, notRun := 0, 0, 0
	for _, a := range batch {
		a := a.(map[string]any)
		if errCode(a) == 0 {
			ok++
			continue
		}
		e := a["error"].(map[string]any)
		details, _ := e["data"].(map[string]any)["details"].(map[string]any)
		msg := e["message"].(string)
		switch details["ran"] {
		case true:
			ran++
			if !strings.Contains(msg, "ran") || strings.Contains(msg, "not run") {
				t.Errorf("the answer left out of a request that ran says %q", msg)
			}
		case false:
			notRun++
			if !strings.Contains(msg, "not run") {
				t.Errorf("the refusal of a request not run says %q", msg)
			}
		default:
			t.Fatalf("a TooLarge answer does not say whether its request ran (data.details.ran): %v", a)
		}
	}
	if got := int(calls.Load()); ok+ran != got || notRun != n-got {
		t.Fatalf("%d calls ran; answers: %d OK, %d left out saying it ran, %d saying it did not run", got, ok, ran, notRun)
	}
	if ran == 0 || notRun == 0 {
		t.Fatalf("want answers both left out and not run (limit 3000 bytes): %d ran, %d not run", ran, notRun)
	}
}
