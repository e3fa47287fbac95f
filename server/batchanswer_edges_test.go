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
	defer ts.h.OnCall(func(st host.CallStats) {
		if st.Code == "" { // a call not run is recorded too, refused TooLarge (TestBatchCallNotRunRecorded)
			calls.Add(1)
		}
	})()
	const n = 40
	var reqs []string
	for i := range n {
		reqs = append(reqs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"value":"%s"}}}`, i, strings.Repeat("x", 600)))
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

// TestBatchPastAnswerLimitKeepsSmallAnswers: past
// server.max_batch_answer_bytes, a subscribe that ran had its answer
// (the subscription's id) replaced by a longer error, so the client was
// subscribed with no id to end the subscription by, and a member that is
// not a request object (5) was told "not run; send it again" instead of
// being an invalid request (left over from p120). Now an answer no longer
// than the error is kept, and a non-object member is answered as one.
func TestBatchPastAnswerLimitKeepsSmallAnswers(t *testing.T) {
	ts := newTestServer(t, "  max_batch_answer_bytes: 100\n", false)
	var reqs []string
	for i := range 8 {
		reqs = append(reqs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"aios/registry.subscribe","params":{"events":["added"]}}`, i))
	}
	reqs = append(reqs, `5`)
	batch := rawExchange(t, ts, "["+strings.Join(reqs, ",")+"]")["batch"].([]any)
	subscribed, notRun := 0, 0
	var five map[string]any
	for _, a := range batch {
		a := a.(map[string]any)
		if a["id"] == nil {
			five = a
			continue
		}
		if r, _ := a["result"].(map[string]any); r != nil && r["subscription"] != nil {
			subscribed++
			continue
		}
		// Not run is fine: the client sends it again. Run and left out
		// is not: it is subscribed with no id.
		if e, _ := a["error"].(map[string]any); e == nil || !strings.Contains(e["message"].(string), "not run") {
			t.Errorf("subscribe %v: answered %v; want its subscription id, or refused as not run", a["id"], a)
		} else {
			notRun++
		}
	}
	// Each subscribe's answer is ≈ 78 bytes, the member 5's ≈ 120: the
	// limit is passed by two subscribes, or by one and 5's answer (the
	// goroutines check the bytes used in no set order), and then the
	// requests not yet started are not run.
	if subscribed < 2 && notRun == 0 {
		t.Fatalf("%d subscriptions made: the batch did not pass the 100-byte limit: %v", subscribed, batch)
	}
	if five == nil || errCode(five) != -32600 {
		t.Fatalf("the member 5 past the limit was answered %v; want an invalid request (-32600)", five)
	}
}
