package js

import (
	"testing"
	"time"
)

// TestPoolStats: the aios_provider_pool metric's source (host.PoolStats)
// counts a JS provider's idle runtimes and those serving calls, in the
// host's process and in a worker process.
func TestPoolStats(t *testing.T) {
	const src = `aios.provider({ id: 'org.test.spin' });
aios.registerTool({ name: 'spin' }, () => { for (;;) {} });
aios.registerTool({ name: 'ok' }, () => 1);
`
	type stats interface{ PoolStats() (int, int) }
	rt := newRuntime(t, Options{PoolSize: 2})
	p := loadSource(t, rt, "spin.js", src)
	check := func(name string, p stats, callSpin func() error, callOK func() error) {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- callSpin() }()
		for end := time.Now().Add(2 * time.Second); ; time.Sleep(time.Millisecond) {
			if _, busy := p.PoolStats(); busy == 1 {
				break
			} else if time.Now().After(end) {
				t.Fatalf("%s, during a call: busy %d, want 1", name, busy)
			}
		}
		<-done
		if err := callOK(); err != nil {
			t.Fatal(err)
		}
		if idle, busy := p.PoolStats(); idle < 1 || busy != 0 {
			t.Fatalf("%s, after a call: idle %d busy %d, want ≥ 1 0", name, idle, busy)
		}
	}
	check("in-process", p,
		func() error {
			_, err := call(t, p, newFakeEnv(), "spin", map[string]any{}, 300*time.Millisecond)
			return err
		},
		func() error { _, err := call(t, p, newFakeEnv(), "ok", map[string]any{}, 5*time.Second); return err })
	pp := loadIsolated(t, Options{}, src)
	check("worker process", pp,
		func() error {
			_, err := callIsolated(t, pp, newFakeEnv(), "spin", map[string]any{}, 300*time.Millisecond)
			return err
		},
		func() error {
			_, err := callIsolated(t, pp, newFakeEnv(), "ok", map[string]any{}, 5*time.Second)
			return err
		})
}
