package python_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/python"
)

// TestPoolWaitBusyNotBlamedOnReplacing: a call that waited for a free
// worker while every worker of the pool was busy, whose deadline came just
// after theirs, was told "of the 2 of P, 2 being started in place of a
// worker that ended (see the log), the rest busy": the busy workers had
// been killed at their deadline a moment before, and the message, meant
// for a pool whose workers keep ending (where a larger pool_size would not
// help), sent the operator to the log for crashes that were none (found by
// p163, a burst of calls with one timeout_ms). Replacements that began in
// the latter half of the wait are said as what they are: every worker was
// busy, and these ended as the call gave up.
func TestPoolWaitBusyNotBlamedOnReplacing(t *testing.T) {
	h := newHost(t, newRuntime(t, func(c *python.Config) { c.PoolSize = 2 }))
	// A slow import: the workers replacing the killed ones are not ready
	// before the waiting call's deadline.
	p := loadTool(t, h, "holdslow.py", `import time
from aios_sdk import tool

time.sleep(1.5)

@tool
def hold(params):
    time.sleep(100)
`)
	ps, ok := host.PoolStatsOf(p)
	if !ok {
		t.Fatal("no pool stats")
	}
	until := func(d time.Time) error {
		_, err := h.Call(context.Background(), &abi.ToolCall{Caller: "tester", Tool: "hold", Params: map[string]any{}, Deadline: d})
		return err
	}
	deadline := time.Now().Add(5 * time.Second)
	done := make(chan error, 2)
	for range 2 {
		go func() { done <- until(deadline) }()
	}
	testutil.Eventually(t, "both workers busy", func() bool {
		_, busy := ps.PoolStats()
		return busy == 2
	})
	// Its deadline comes 700 ms after those of the two it waits behind,
	// whose workers are killed then (the stack asked for first, at most
	// 200 ms) and replaced by workers taking 1.5 s to import.
	err := until(deadline.Add(700 * time.Millisecond))
	var te *abi.ToolError
	if !errors.As(err, &te) || te.Code != abi.Timeout || !strings.Contains(te.Message, "waiting for a free python worker") {
		t.Fatalf("got %v, want Timeout waiting for a free python worker", err)
	}
	if strings.Contains(te.Message, "being started in place of a worker that ended (see the log)") || !strings.Contains(te.Message, "busy") {
		t.Errorf("the pool was busy for the whole wait; the error says %q", te.Message)
	}
	for range 2 {
		<-done
	}
}
