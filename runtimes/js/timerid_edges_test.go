package js

import (
	"testing"
	"time"
)

// TestStaleTimerIDClearsNothing: timer ids started at 1 in every call, so
// an id kept from an earlier call of the same runtime (a module-level
// "cancel the last timer" variable, as a debounce keeps it) named a timer
// of the current call, and clearTimeout of the stale id cancelled that
// timer: the call's promise never settled and it failed at its deadline.
// Ids are unique for the runtime's life, as node's are for the process's,
// so a stale id clears nothing.
func TestStaleTimerIDClearsNothing(t *testing.T) {
	rt := newRuntime(t, Options{PoolSize: 1})
	p := loadSource(t, rt, "debounce.js", `
let last; // the timer of the previous call, long since run or cancelled
aios.registerTool({ name: 'tick', parameters: {} }, () => new Promise((resolve) => {
  const t = setTimeout(() => resolve('fired'), 5);
  if (last !== undefined) clearTimeout(last);
  last = t;
}));
`)
	for i := range 3 {
		got, err := call(t, p, newFakeEnv(), "tick", map[string]any{}, 5*time.Second)
		if err != nil || got != "fired" {
			t.Fatalf("call %d: got %v, %v; want fired (a stale timer id cleared this call's timer)", i+1, got, err)
		}
	}
}
