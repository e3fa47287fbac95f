package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestAbandonedRuntimesBounded: once PoolSize runtimes are abandoned inside
// a built-in that cannot be interrupted (each burning a core), the
// provider answers Unavailable, naming why, instead of letting repeated
// calls pile up more; it serves again when the built-in returns.
func TestAbandonedRuntimesBounded(t *testing.T) {
	rt := newRuntime(t, Options{PoolSize: 1})
	p := loadSource(t, rt, "regex.js", `
aios.registerTool({ name: 'regex', parameters: { type: 'object' } },
  (p) => ({ m: /^(a+)+(?=b)\1$/.test('a'.repeat(p.n) + 'c') }));
aios.registerTool({ name: 'ok', parameters: { type: 'object' } }, () => ({ ok: true }));
`)
	n := regexLength(t, p, time.Second)
	_, err := call(t, p, newFakeEnv(), "regex", map[string]any{"n": int64(n)}, 50*time.Millisecond)
	wantCode(t, err, abi.Timeout)
	if p.Abandoned() != 1 {
		t.Skipf("the regexp returned before the test looked (%d abandoned)", p.Abandoned())
	}
	_, err = call(t, p, newFakeEnv(), "ok", map[string]any{}, 2*time.Second)
	te := wantCode(t, err, abi.Unavailable)
	if !strings.Contains(te.Message, "could not be interrupted") || !strings.Contains(te.Message, "pool_size 1") {
		t.Fatalf("message %q", te.Message)
	}
	deadline := time.Now().Add(time.Minute)
	for p.Abandoned() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if res, err := call(t, p, newFakeEnv(), "ok", map[string]any{}, 2*time.Second); err != nil || !equalJSON(res, map[string]any{"ok": true}) {
		t.Fatalf("after the built-in returned: %v, %v", res, err)
	}
}
