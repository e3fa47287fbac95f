package python_test

import (
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

const probePoolSrc = `
import time
from aios_sdk import tool

@tool
def nap(params):
    time.sleep(params.get("s", 0))
    return {"ok": True}
`

// TestProbePoolWaitTimeoutNamesKey: a call that waits for a worker of a
// full pool until its deadline gets Timeout naming
// runtimes.python.pool_size (as wasm's names runtimes.wasm.pool_size).
func TestProbePoolWaitTimeoutNamesKey(t *testing.T) {
	rt := newRuntime(t, func(c *python.Config) { c.PoolSize = 1 })
	h := newHost(t, rt)
	loadTool(t, h, "pool.py", probePoolSrc)
	if _, err := call(h, "nap", map[string]any{}, 10*time.Second); err != nil { // the worker is up
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := call(h, "nap", map[string]any{"s": 0.8}, 10*time.Second)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	_, err := call(h, "nap", map[string]any{}, 150*time.Millisecond)
	wantCode(t, err, abi.Timeout, "runtimes.python.pool_size", "nap")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
