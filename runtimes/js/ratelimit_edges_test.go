package js

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestPoolWaitTimeoutSaysWhy: a call that waits for a runtime of a
// full pool until its deadline gets Timeout saying so and naming
// runtimes.js.pool_size (it was a bare "context deadline exceeded", which
// reads as the tool being slow, not the pool being full), as wasm and
// python say.
func TestPoolWaitTimeoutSaysWhy(t *testing.T) {
	rt := newRuntime(t, Options{PoolSize: 1})
	p := loadSource(t, rt, "pool.js", poolProvider)
	done := make(chan error, 1)
	go func() {
		_, err := call(t, p, newFakeEnv(), "count", map[string]any{"wait": int64(600)}, 5*time.Second)
		done <- err
	}()
	time.Sleep(100 * time.Millisecond) // the one runtime is busy
	_, err := call(t, p, newFakeEnv(), "count", map[string]any{}, 100*time.Millisecond)
	te := wantCode(t, err, abi.Timeout)
	if !strings.Contains(te.Message, "runtimes.js.pool_size") || !strings.Contains(te.Message, "count") {
		t.Errorf("message %q does not say the pool was full", te.Message)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
