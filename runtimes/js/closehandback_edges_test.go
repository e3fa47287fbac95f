package js

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCloseDuringHandBackDropsRuntime: a call that ended as its provider
// was closed, between Call's check of closed and its hand-back of the
// runtime to the pool, put the runtime back after Close had drained the
// pool: it sat idle for good, never dropped (found by p190 reading the
// code). The hand-back now checks again and drops it.
func TestCloseDuringHandBackDropsRuntime(t *testing.T) {
	rt := newRuntime(t, Options{PoolSize: 1})
	p := loadSource(t, rt, "hb.js", `aios.provider({ id: 'org.test.hb' });
aios.registerTool({ name: 'one', parameters: {} }, () => 1);
`)
	testHookBeforeFree = func(pp *Provider) {
		if pp == p {
			_ = pp.Close()
		}
	}
	t.Cleanup(func() { testHookBeforeFree = nil })
	c := &abi.ToolCall{ID: "c1", Tool: "one", Params: map[string]any{}, Deadline: time.Now().Add(10 * time.Second)}
	if got, err := p.Call(context.Background(), c, newFakeEnv()); err != nil || got != int64(1) {
		t.Fatalf("call: %v %v", got, err)
	}
	if idle, busy := p.PoolStats(); idle != 0 || busy != 0 {
		t.Fatalf("after Close during the hand-back: %d idle, %d busy runtimes; want none", idle, busy)
	}
}
