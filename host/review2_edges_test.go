package host

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
)

// TestWatchedCallerDeadlineAndAudit: a provider that does not keep
// deadlines is abandoned when its caller's own context ends: Cancelled
// for a cancel, Timeout when the caller's context has a deadline of its
// own, earlier than the call's, that passes (not Cancelled, and not only
// at the call's deadline plus 1 s). Each abandoned call is audited once,
// with that outcome, and the provider's late return adds nothing. No
// defect.
func TestWatchedCallerDeadlineAndAudit(t *testing.T) {
	te := newTestHost(t, nil)
	p := &stuckProvider{release: make(chan struct{}), after: make(chan error, 2)}
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(4 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := te.h.Call(ctx, &abi.ToolCall{Caller: "alice", Tool: "stuck", Deadline: deadline})
	if abi.CodeOf(err) != abi.Timeout || !strings.Contains(err.Error(), "abandoned") {
		t.Errorf("caller's context deadline of 50 ms, call deadline 4 s: %v; want Timeout, abandoned", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel2)
	_, err = te.h.Call(ctx2, &abi.ToolCall{Caller: "alice", Tool: "stuck", Deadline: deadline})
	if abi.CodeOf(err) != abi.Cancelled || !strings.Contains(err.Error(), "abandoned") {
		t.Errorf("caller cancelled after 50 ms: %v; want Cancelled, abandoned", err)
	}
	if time.Now().After(deadline) {
		t.Error("the host answered the caller only at the call's deadline")
	}
	close(p.release)
	for range 2 {
		if err := <-p.after; abi.CodeOf(err) != abi.Unavailable {
			t.Errorf("Env of an abandoned call answered %v, want Unavailable", err)
		}
	}
	if err := te.h.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(te.audit)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := audit.Verify(f); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(te.audit)
	var stuck []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, `"stuck"`) {
			stuck = append(stuck, l)
		}
	}
	if len(stuck) != 2 || !strings.Contains(stuck[0], `"Timeout"`) || !strings.Contains(stuck[1], `"Cancelled"`) {
		t.Errorf("audit of the two abandoned calls: %d records, want one Timeout then one Cancelled:\n%s", len(stuck), strings.Join(stuck, "\n"))
	}
	if strings.Contains(string(data), `"late"`) {
		t.Errorf("the abandoned calls' late Env call was audited:\n%s", data)
	}
}
