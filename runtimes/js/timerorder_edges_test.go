package js

import (
	"reflect"
	"testing"
	"time"
)

// TestTimersFireInDueOrder: timers fire in the order of their due times,
// those due at once in the order they were set, as in node; a delay below
// 1 ms is 1 ms, as node clamps it, so setTimeout(f, 0) set after
// setTimeout(g, 1) fires after it. Each timer was a Go timer of its own
// that posted its callback when it fired: timers set with the same delay
// ran in any order, and a timer that cleared one set after it with the
// same delay ran after that one had already fired.
func TestTimersFireInDueOrder(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "order.js", `
aios.registerTool({ name: 'order', parameters: {} }, async () => {
  const log = [];
  setTimeout(() => log.push('one ms'), 1);
  setTimeout(() => log.push('zero'), 0);
  for (let i = 0; i < 30; i++) setTimeout(() => log.push(i), 0);
  setTimeout(() => clearTimeout(later), 0);
  const later = setTimeout(() => log.push('cleared, yet fired'), 0);
  setTimeout((a, b) => log.push(a + b), -5, 'x', 'y');
  await new Promise((resolve) => setTimeout(resolve, 5));
  return log;
});
`)
	want := []any{"one ms", "zero"}
	for i := 0; i < 30; i++ {
		want = append(want, int64(i))
	}
	want = append(want, "xy")
	for range 3 {
		got, err := call(t, p, newFakeEnv(), "order", map[string]any{}, 30*time.Second)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("got %v, %v; want %v", got, err, want)
		}
	}
}
