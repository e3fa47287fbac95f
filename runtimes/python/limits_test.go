package python_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
	"github.com/aios-host/aios-host/space"
)

// logRecord is one record a captureHandler saw.
type logRecord struct {
	at    time.Time
	level slog.Level
	msg   string
	attrs map[string]string
}

// captureHandler keeps every record (also passing it to the test log).
type captureHandler struct {
	mu    *sync.Mutex
	recs  *[]logRecord
	attrs []slog.Attr
}

func newCapture() *captureHandler {
	return &captureHandler{mu: new(sync.Mutex), recs: new([]logRecord)}
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{at: time.Now(), level: r.Level, msg: r.Message, attrs: map[string]string{}}
	for _, a := range h.attrs {
		rec.attrs[a.Key] = a.Value.String()
	}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	*h.recs = append(*h.recs, rec)
	h.mu.Unlock()
	return nil
}
func (h *captureHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}
func (h *captureHandler) WithGroup(string) slog.Handler { return h }

// records returns the records so far whose message is msg.
func (h *captureHandler) records(msg string) []logRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []logRecord
	for _, r := range *h.recs {
		if r.msg == msg {
			out = append(out, r)
		}
	}
	return out
}

// waitRecord waits up to d for a record with message msg.
func (h *captureHandler) waitRecord(t *testing.T, msg string, d time.Duration) logRecord {
	t.Helper()
	end := time.Now().Add(d)
	for {
		if rs := h.records(msg); len(rs) > 0 {
			return rs[0]
		}
		if time.Now().After(end) {
			t.Fatalf("no %q record within %v", msg, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// newCapturingHost is a host (and python runtime) logging into a capture.
func newCapturingHost(t *testing.T, pc func(*python.Config)) (*host.Host, *captureHandler) {
	t.Helper()
	capt := newCapture()
	log := slog.New(capt)
	c := python.DefaultConfig()
	c.PoolSize = 1
	if pc != nil {
		pc(&c)
	}
	rt, err := python.New(c, log)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	st, err := space.Open(filepath.Join(cfg.Data, "spaces"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: cfg, Spaces: st, Loaders: []abi.Loader{rt}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h, capt
}

const chatty = `import sys
from aios_sdk import Agent, tool
from aios_sdk._core import HostOp

@Agent(id="org.test.chatty")
class Chatty:
    @tool(name="ok")
    def ok(self, params):
        return {"ok": True}

    @tool(name="log-flood")
    def log_flood(self, params, ctx):
        for i in range(params["n"]):
            ctx.log("flood", i)
        return {"ok": True}

    @tool(name="log-flood-hostcall")
    def log_flood_hostcall(self, params, ctx):
        w = ctx._worker
        for i in range(params["n"]):
            w.host_roundtrip(HostOp(w, ctx.call_id, "log", {"level": "info", "message": "hc-flood %d" % i}))
        return {"ok": True}

    @tool(name="print-flood")
    def print_flood(self, params):
        for i in range(params["n"]):
            print("pflood", i)
        sys.stdout.flush()
        return {"ok": True}

    @tool(name="bad-level")
    def bad_level(self, params, ctx):
        try:
            ctx.log("x", level="bogus")
        except ValueError as e:
            refused = str(e)
        else:
            refused = ""
        ctx.log("upper-case level", level="WARNING")
        # What the SDK refuses, a raw envelope can still carry.
        ctx._worker.send_log("bogus", "raw bogus", ctx.call_id)
        return {"refused": refused}

    @tool(name="long-line")
    def long_line(self, params, ctx):
        print("L" * (200 << 10))
        print("after the long line")
        sys.stdout.flush()
        ctx.log("M" * (200 << 10))
        return {"ok": True}
`

// TestLogBudget: ctx.log lines (log envelopes and "log" host calls) are
// capped at 100 a second per worker like stderr, and the rest are reported
// in a "python ctx.log lines suppressed" warning within about a second,
// without any further activity of the worker.
func TestLogBudget(t *testing.T) {
	h, capt := newCapturingHost(t, nil)
	loadTool(t, h, "chatty.py", chatty)
	start := time.Now()
	if _, err := call(h, "log-flood", map[string]any{"n": 2000}, 0); err != nil {
		t.Fatal(err)
	}
	w := capt.waitRecord(t, "python ctx.log lines suppressed", 30*time.Second)
	logged, first, last := spanPrefix(capt, "flood ")
	if logged < 100 || logged > budgetOf(start, last) {
		t.Errorf("%d of 2000 ctx.log lines logged in %v, want 100 a second", logged, last.Sub(start))
	}
	if w.level != slog.LevelWarn || w.attrs["lines"] == "" || w.attrs["lines"] == "0" {
		t.Errorf("suppressed warning %+v", w)
	}
	if d := w.at.Sub(first); d > 3*time.Second {
		t.Errorf("suppressed warning %v after the first line logged, want the end of its 1 s window", d)
	}
	// The "log" host call shares the budget.
	time.Sleep(1100 * time.Millisecond)
	start = time.Now()
	if _, err := call(h, "log-flood-hostcall", map[string]any{"n": 400}, 0); err != nil {
		t.Fatal(err)
	}
	if logged, _, last := spanPrefix(capt, "hc-flood "); logged > budgetOf(start, last) {
		t.Errorf("%d of 400 log host calls logged in %v, want the ctx.log budget", logged, last.Sub(start))
	}
}

// spanPrefix returns how many records' messages begin with prefix, and
// when the first and the last of them were logged.
func spanPrefix(c *captureHandler, prefix string) (n int, first, last time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range *c.recs {
		if strings.HasPrefix(r.msg, prefix) {
			if n == 0 {
				first = r.at
			}
			last = r.at
			n++
		}
	}
	return n, first, last
}

// budgetOf is the most lines the budget of 100 a second lets through
// between start (before the first line) and last (when the last one was
// logged): its windows of 1 s each start at least 1 s after the previous
// one, so at most one more than the whole seconds between the two. A
// flood of a few hundred ms is one window, 100 lines; on a loaded machine
// (-race, 2 busy cores) the same flood may take seconds, and so more
// windows.
func budgetOf(start, last time.Time) int {
	if last.IsZero() {
		return 0
	}
	return 100 * (int(last.Sub(start)/time.Second) + 1)
}

// TestLogLevels: an unknown level is refused by ctx.log (ValueError); one
// that reaches the host anyway is logged at info with bad_level; level
// names are case-insensitive.
func TestLogLevels(t *testing.T) {
	h, capt := newCapturingHost(t, nil)
	loadTool(t, h, "chatty.py", chatty)
	v, err := call(h, "bad-level", map[string]any{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r := v.(map[string]any)["refused"].(string); !strings.Contains(r, "unknown level 'bogus'") {
		t.Fatalf("ctx.log(level='bogus') was not refused: %q", r)
	}
	if rs := capt.records("x"); len(rs) != 0 {
		t.Fatalf("the refused line was logged: %+v", rs)
	}
	if rs := capt.records("upper-case level"); len(rs) != 1 || rs[0].level != slog.LevelWarn {
		t.Fatalf("level='WARNING': %+v", rs)
	}
	rs := capt.records("raw bogus")
	if len(rs) != 1 || rs[0].level != slog.LevelInfo || rs[0].attrs["bad_level"] != "bogus" {
		t.Fatalf("a raw log envelope of level bogus: %+v", rs)
	}
}

// TestStderrSuppressedReportedPromptly: the "python stderr lines
// suppressed" warning comes within about a second of the flood, not when
// the worker next prints or exits.
func TestStderrSuppressedReportedPromptly(t *testing.T) {
	h, capt := newCapturingHost(t, nil)
	loadTool(t, h, "chatty.py", chatty)
	start := time.Now()
	if _, err := call(h, "print-flood", map[string]any{"n": 500}, 0); err != nil {
		t.Fatal(err)
	}
	w := capt.waitRecord(t, "python stderr lines suppressed", 30*time.Second)
	lines := capt.records("python stderr")
	logged := len(lines)
	if logged == 0 {
		t.Fatal("no stderr line logged")
	}
	first, last := lines[0].at, lines[logged-1].at
	if d := w.at.Sub(first); d > 3*time.Second {
		t.Errorf("suppressed warning %v after the first line logged, want the end of its 1 s window", d)
	}
	if logged < 100 || logged > budgetOf(start, last) {
		t.Errorf("%d of 500 stderr lines logged in %v, want 100 a second", logged, last.Sub(start))
	}
}

// TestLongStderrLine: a stderr line longer than 64 KiB is logged cut (with
// the number of bytes dropped) and stderr goes on being read; a long
// ctx.log line is cut too.
func TestLongStderrLine(t *testing.T) {
	h, capt := newCapturingHost(t, nil)
	loadTool(t, h, "chatty.py", chatty)
	if _, err := call(h, "long-line", map[string]any{}, 0); err != nil {
		t.Fatal(err)
	}
	capt.waitRecord(t, "python stderr", 2*time.Second)
	end := time.Now().Add(2 * time.Second)
	for {
		var long, after bool
		for _, r := range capt.records("python stderr") {
			switch line := r.attrs["line"]; {
			case strings.HasPrefix(line, "LLLL"):
				long = len(line) == 64<<10 && r.attrs["truncated_bytes"] == "139264"
				if !long {
					t.Fatalf("long line logged with %d bytes, truncated_bytes %q", len(line), r.attrs["truncated_bytes"])
				}
			case line == "after the long line":
				after = true
			}
		}
		if long && after {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("long line logged %v, the line after it %v", long, after)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n, _, _ := spanPrefix(capt, "MMMM"); n != 1 {
		t.Fatalf("%d long ctx.log lines", n)
	}
	stillServes(t, h, "a long stderr line")
}

const results = `from aios_sdk import Agent, ToolError, tool

@Agent(id="org.test.results")
class Results:
    @tool(name="ok")
    def ok(self, params):
        return {"ok": True}

    @tool(name="deep")
    def deep(self, params):
        v = []
        for _ in range(100000):
            v = [v]
        return v

    @tool(name="encode-oom")
    def encode_oom(self, params):
        # Small in memory, 300 MB as JSON: more than the worker may hold.
        return ["x" * 1000] * 300000

    @tool(name="over-frame")
    def over_frame(self, params):
        return "x" * (70 << 20)

    @tool(name="raw-big-frame")
    def raw_big_frame(self, params, ctx):
        import os, time
        w = ctx._worker
        with w.wlock:
            os.write(w.out_fd, (100 << 20).to_bytes(4, "big"))
            time.sleep(30)

    @tool(name="big-int")
    def big_int(self, params):
        return {"ok": [1, 2, {"n": 10 ** 30}]}

    @tool(name="int64-edges")
    def int64_edges(self, params):
        return {"max": 2 ** 63 - 1, "min": -2 ** 63, "digits": "12345678901234567890123", "f": 1e30, "t": True}

    @tool(name="neg-big-int")
    def neg_big_int(self, params):
        return [-2 ** 63 - 1]

    @tool(name="huge-int")
    def huge_int(self, params):
        return {"n": 7 ** 1000}
`

// TestResultLimits: results that cannot cross are refused with the right
// code, and the worker lives on (the same pid serves the next call) —
// except for a frame over the limit written around the SDK, which costs
// the worker but is reported as TooLarge.
func TestResultLimits(t *testing.T) {
	for _, wf := range []string{"msgpack", "json"} {
		t.Run(wf, func(t *testing.T) { testResultLimits(t, wf) })
	}
}

func testResultLimits(t *testing.T, wf string) {
	h, _ := newCapturingHost(t, func(c *python.Config) { c.MemoryMB = 256; c.Wire = wf })
	p := loadTool(t, h, "results.py", results).(*python.Provider)
	if got := p.WireFormats(); len(got) != 1 || got[0] != wf {
		t.Fatalf("wire formats %q, want [%s]", got, wf)
	}
	stillServes(t, h, "loading")
	pids := p.WorkerPIDs()
	// A value small in memory but 300 MB encoded: the JSON encoder runs
	// out of memory on it; MessagePack's encoder too, and then the worker
	// measures it: over the frame limit.
	oom := struct {
		code     abi.ErrorCode
		contains []string
	}{abi.InvalidResult, []string{"too large to encode", "out of memory", "256 MiB"}}
	if wf == "msgpack" {
		oom.code, oom.contains = abi.TooLarge, []string{"about 301500005 bytes", "frame limit", "64 MiB"}
	}
	tests := []struct {
		tool     string
		code     abi.ErrorCode
		contains []string
		replaced bool
	}{
		{"deep", abi.InvalidResult, []string{"nested deeper than 512 levels"}, false},
		{"encode-oom", oom.code, oom.contains, false},
		{"over-frame", abi.TooLarge, []string{"frame limit", "64 MiB", "limits.max_result_bytes"}, false},
		{"big-int", abi.InvalidResult, []string{"$.ok[2].n", "1000000000000000000000000000000", "int64"}, false},
		{"neg-big-int", abi.InvalidResult, []string{"$[0]", "-9223372036854775809", "int64"}, false},
		{"huge-int", abi.InvalidResult, []string{"$.n", "int64"}, false},
		{"raw-big-frame", abi.TooLarge, []string{"104857600 bytes", "frame limit", "limits.max_result_bytes"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			_, err := call(h, tc.tool, map[string]any{}, 20*time.Second)
			wantCode(t, err, tc.code, tc.contains...)
			stillServes(t, h, tc.tool)
			now := p.WorkerPIDs()
			if same := len(now) == 1 && len(pids) == 1 && now[0] == pids[0]; same == tc.replaced {
				t.Errorf("workers %v before, %v after; replaced: want %v", pids, now, tc.replaced)
			}
			pids = now
		})
	}
	v, err := call(h, "int64-edges", map[string]any{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["max"] != int64(1<<63-1) || m["min"] != int64(-1<<63) || m["digits"] != "12345678901234567890123" || m["f"] != 1e30 {
		t.Fatalf("int64 edges: %#v", m)
	}
}
