package python_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// A result of many small values ([{}] * 8M: an 8 MiB frame) is refused
// before the host decodes it, which would take about 500 MiB (found by a
// probe); the provider keeps serving.
func TestResultDecodeBudget(t *testing.T) {
	rt := newRuntime(t, func(pc *python.Config) { pc.PoolSize = 1 })
	h := newHost(t, rt)
	loadTool(t, h, "amp.py", `
from aios_sdk import tool, provider
provider(id="org.test.amp")

@tool(name="amp", parameters={"type": "object"})
def amp(params):
    return [{}] * 8_000_000

@tool(name="fine", parameters={"type": "object"})
def fine(params):
    return {"ok": True}
`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := call(h, "amp", map[string]any{}, 60*time.Second)
	runtime.ReadMemStats(&after)
	alloc := (after.TotalAlloc - before.TotalAlloc) >> 20
	if err == nil || !strings.Contains(err.Error(), "would decode to more than the 256 MiB of host memory a frame may take") {
		t.Fatalf("amp: %v, want the decode budget's refusal", err)
	}
	if code := abi.CodeOf(err); code == abi.Internal {
		t.Fatalf("amp: code %s", code)
	}
	if alloc > 200 {
		t.Errorf("one call with an 8 MiB result frame cost the host %d MiB", alloc)
	}
	if v, err := call(h, "fine", map[string]any{}, 30*time.Second); err != nil {
		t.Fatalf("after the refusal: %v %v", v, err)
	}
}
