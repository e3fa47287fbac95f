package python_test

import (
	"strings"
	"testing"
	"time"
)

// TestLongCtxLogSaysWhatWasCut: ctx.log cut a long message at 64 Ki
// characters and put "… (N characters cut)" after them, above the 64 KiB
// the host logs of a line (maxLogLine), which cut it again: the SDK's note
// was lost and the line said truncated_bytes=29 of a message of a
// megabyte (a message of é, counted in characters, was cut by the host at
// half). The SDK now cuts to 64 KiB of UTF-8, its note included, so the
// line says how many characters were cut and the host cuts nothing.
func TestLongCtxLogSaysWhatWasCut(t *testing.T) {
	h, capt := newCapturingHost(t, nil)
	loadTool(t, h, "biglog.py", `from aios_sdk import tool

@tool(name="big-log")
def big_log(params, ctx):
    ctx.log(params["c"] * 1000000, level="warning")
    return {"ok": True}
`)
	for _, c := range []string{"z", "\u00e9"} {
		if _, err := call(h, "big-log", map[string]any{"c": c}, 0); err != nil {
			t.Fatal(err)
		}
		var got *logRecord
		for end := time.Now().Add(20 * time.Second); got == nil && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			capt.mu.Lock()
			for i := range *capt.recs {
				if r := (*capt.recs)[i]; strings.HasPrefix(r.msg, c+c+c) {
					got = &r
				}
			}
			capt.mu.Unlock()
		}
		if got == nil {
			t.Fatalf("%q: no ctx.log line logged", c)
		}
		if !strings.HasSuffix(got.msg, "characters cut)") || got.attrs["truncated_bytes"] != "" {
			t.Errorf("%q: the line (%d bytes) ends %q, truncated_bytes=%q; want the SDK's note and no cut of the host's",
				c, len(got.msg), got.msg[len(got.msg)-min(60, len(got.msg)):], got.attrs["truncated_bytes"])
		}
		if len(got.msg) > 64<<10 {
			t.Errorf("%q: a line of %d bytes", c, len(got.msg))
		}
		capt.mu.Lock()
		*capt.recs = nil
		capt.mu.Unlock()
	}
}
