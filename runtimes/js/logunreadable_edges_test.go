package js

import (
	"strings"
	"testing"
	"time"
)

// TestLogOfUnreadableValueNeverThrows: console.log and ctx.log of a value
// whose reading throws — a revoked Proxy (instanceof, JSON and String all
// throw on it), a null-prototype object with a getter that throws (no
// toString to fall back on) — threw out of the log call and failed the
// tool, "TypeError: Proxy already revoked", or goja's "Could not convert
// &{Object 0x… } to primitive". Writing a log line never fails a call: the
// value is shown as one that could not be read, with why, and the other
// arguments as ever.
func TestLogOfUnreadableValueNeverThrows(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "unreadable.js", `
aios.registerTool({ name: 'log', parameters: {} }, (p, ctx) => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  const dict = Object.create(null, { x: { get() { throw new RangeError('not loaded'); }, enumerable: true } });
  console.log('revoked', proxy, 1);
  ctx.log('dict', dict, 2);
  console.log('%s and %o', proxy, dict);
  return 'logged';
});
`)
	env := newFakeEnv()
	got, err := call(t, p, env, "log", map[string]any{}, 5*time.Second)
	if err != nil || got != "logged" {
		t.Fatalf("got %v, %v; want logged", got, err)
	}
	want := []string{
		"INFO revoked [a value that could not be read: TypeError: Proxy already revoked] 1",
		"INFO dict [a value that could not be read: RangeError: not loaded] 2",
		"INFO [a value that could not be read: TypeError: Proxy already revoked] and [a value that could not be read: RangeError: not loaded]",
	}
	if strings.Join(env.logs, "\n") != strings.Join(want, "\n") {
		t.Errorf("logged %q; want %q", env.logs, want)
	}
}
