package js

import (
	"reflect"
	"testing"
	"time"
)

// TestTimerDelayOverflowFiresAtOnce: a setTimeout delay past 2^31-1 ms
// (Infinity, 2 ** 40, Number.MAX_SAFE_INTEGER) fires at once, as node
// (after 1 ms, with its TimeoutOverflowWarning) and browsers (ToInt32 of
// it, 0 for these) fire it. It was converted to a Go duration unchecked:
// Infinity, out of int64's range, fired at once on amd64 and would wait
// on other platforms (Go leaves such a conversion to the platform), and
// 2 ** 40 waited for the call's deadline.
func TestTimerDelayOverflowFiresAtOnce(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "overflow.js", `
const after = (ms, v) => new Promise((resolve) => setTimeout(() => resolve(v), ms));
aios.registerTool({ name: 'overflow', parameters: {} }, () => Promise.all([
  after(Infinity, 'inf'), after(2 ** 40, 'big'), after(Number.MAX_SAFE_INTEGER, 'safe'), after(2 ** 31, 'just past'),
]));
`)
	got, err := call(t, p, newFakeEnv(), "overflow", map[string]any{}, 5*time.Second)
	if want := []any{"inf", "big", "safe", "just past"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, %v; want %v at once", got, err, want)
	}
}
