package js

import (
	"testing"
	"time"
)

// BenchmarkManyTimers is one call that sets 20 000 timers due at once and
// waits for all of them: the timer due first was found by a scan of all
// the call's timers, 20 000²/2 map visits in all (4.3 s a call, 0.2-0.33 s
// with the due-time heap, p244's fix reviewed).
func BenchmarkManyTimers(b *testing.B) {
	rt := newRuntime(b, Options{})
	p := loadSource(b, rt, "many.js", `
aios.registerTool({name: 'many', parameters: {}}, async () => {
  let n = 0;
  await new Promise(r => { for (let i = 0; i < 20000; i++) setTimeout(() => { if (++n === 20000) r(); }, 0); });
  return n;
});`)
	env := newFakeEnv()
	for b.Loop() {
		if v, err := call(b, p, env, "many", map[string]any{}, 2*time.Minute); err != nil || v != int64(20000) {
			b.Fatalf("%v %v", v, err)
		}
	}
}
