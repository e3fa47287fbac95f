package python_test

import (
	"strings"
	"testing"
	"time"
)

// TestLogBetweenCallsReachesHost: a record a tool's thread logged through
// Python's logging (or ctx.log) after its call had ended went to the host
// as a log frame, which the host reads only while a call runs: it waited
// in the pipe for the worker's next call, however long that took, and was
// lost with a worker stopped meanwhile (a closed provider, a reload);
// 64 KiB of them blocked the thread. Between calls such lines go to stderr,
// which the host reads at all times.
func TestLogBetweenCallsReachesHost(t *testing.T) {
	h, capt := newCapturingHost(t, nil)
	loadTool(t, h, "idlelog.py", `import logging, threading, time
from aios_sdk import tool

log = logging.getLogger("refresher")

@tool(name="start")
def start(params, ctx):
    def later():
        time.sleep(1)  # past the end of the call
        log.warning("cache refresh failed")
        ctx.log("refresh done from a thread")
    threading.Thread(target=later, daemon=True).start()
    return {"started": True}
`)
	if _, err := call(h, "start", map[string]any{}, time.Minute); err != nil {
		t.Fatal(err)
	}
	want := []string{"refresher: cache refresh failed", "refresh done from a thread"}
	end := time.Now().Add(30 * time.Second)
	for _, w := range want {
		for {
			found := false
			capt.mu.Lock()
			for _, r := range *capt.recs {
				if strings.Contains(r.msg, w) || strings.Contains(r.attrs["line"], w) {
					found = true
				}
			}
			capt.mu.Unlock()
			if found {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("%q, logged by a tool's thread after its call ended, had not reached the host log 30 s later", w)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
