package python_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestLeftTaskBaseExceptionSparesLaterCall: an asyncio task a call left
// running (created, not awaited) that raised KeyboardInterrupt or
// SystemExit once its call had ended broke out of the event loop in
// whichever call ran it next: an unrelated async call failed
// "KeyboardInterrupt: … (at left.py:N)", or ended its worker as "tool
// asleep called sys.exit(…)" (ProviderCrashed), blaming a tool that did
// neither; and that call's coroutine stayed on the loop, to run on in a
// later call. The left task's exception ends that task only, as a
// thread's does, logged naming the tool that left it; the call running
// goes on.
func TestLeftTaskBaseExceptionSparesLaterCall(t *testing.T) {
	h, capt := newCapturingHost(t, nil)
	p := loadTool(t, h, "left.py", `import asyncio, os
from aios_sdk import tool

@tool(name="leave")
async def leave(params):
    exc = {"kbi": KeyboardInterrupt, "exit": SystemExit}[params["e"]]
    async def later():
        await asyncio.sleep(0.05)
        raise exc("from the left task")
    asyncio.get_running_loop().create_task(later())
    return {"left": True}

@tool(name="asleep")
async def asleep(params):
    await asyncio.sleep(1)
    return {"pid": os.getpid()}
`)
	pw, ok := p.(interface{ WorkerPIDs() []int })
	if !ok {
		t.Fatal("the provider does not list its workers")
	}
	before := pw.WorkerPIDs()
	for _, e := range []string{"kbi", "exit"} {
		if _, err := call(h, "leave", map[string]any{"e": e}, time.Minute); err != nil {
			t.Fatalf("leave %s: %v", e, err)
		}
		got, err := call(h, "asleep", map[string]any{}, time.Minute)
		if err != nil {
			t.Fatalf("after leave (%s) left a task that raised, the unrelated call asleep failed: %v", e, err)
		}
		if m, _ := got.(map[string]any); m["pid"] == nil {
			t.Fatalf("asleep after leave (%s): %#v", e, got)
		}
	}
	if after := pw.WorkerPIDs(); !equalInts(before, after) {
		t.Errorf("workers %v became %v: a left task's SystemExit ended the worker", before, after)
	}
	for _, want := range []string{"KeyboardInterrupt: from the left task", "SystemExit: from the left task"} {
		found := false
		capt.mu.Lock()
		for _, r := range *capt.recs {
			if r.level == slog.LevelError && strings.Contains(r.msg, want) {
				found = true
				for _, s := range []string{"tool leave", "left.py:9", "tool asleep"} {
					if !strings.Contains(r.msg, s) {
						t.Errorf("the log of the left task's %s does not name %q: %s", want, s, r.msg)
					}
				}
			}
		}
		capt.mu.Unlock()
		if !found {
			t.Errorf("no error logged for the left task's %s", want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
