package python_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestPythonLoggingLevelsKept: a tool's records through Python's logging
// module that no handler takes (warnings and errors of loggers nobody
// configured: the module's "last resort") went to stderr and were logged
// at info whatever their level (found by p168). They reach the host log
// at their own level, tagged with the call; records below the loggers'
// level (info, by default) are not logged, as in Python.
func TestPythonLoggingLevelsKept(t *testing.T) {
	h, capt := newCapturingHost(t, nil)
	loadTool(t, h, "logs.py", `import logging
from aios_sdk import tool

log = logging.getLogger("inventory")

@tool(name="logs")
def logs(params):
    log.info("below the default level")
    log.warning("stock low: %d left", 3)
    log.error("stock gone")
    return {"ok": True}
`)
	if _, err := call(h, "logs", map[string]any{}, 0); err != nil {
		t.Fatal(err)
	}
	want := map[string]slog.Level{"inventory: stock low: 3 left": slog.LevelWarn, "inventory: stock gone": slog.LevelError}
	deadline := time.Now().Add(10 * time.Second)
	for msg, level := range want {
		for {
			var found []logRecord
			capt.mu.Lock()
			for _, r := range *capt.recs {
				if r.attrs["line"] == msg || r.attrs["msg"] == msg || r.msg == msg {
					found = append(found, r)
				}
			}
			capt.mu.Unlock()
			if len(found) > 0 {
				if found[0].level != level || found[0].attrs["call"] == "" {
					t.Errorf("%q logged as %+v, want level %v with its call id", msg, found[0], level)
				}
				break
			}
			if time.Now().After(deadline) {
				capt.mu.Lock()
				t.Fatalf("%q not logged; the log: %+v", msg, *capt.recs)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	capt.mu.Lock()
	defer capt.mu.Unlock()
	for _, r := range *capt.recs {
		for _, v := range r.attrs {
			if strings.Contains(v, "below the default level") {
				t.Errorf("a record below the logger's level was logged: %+v", r)
			}
		}
	}
}
