package wasm

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestLongLineLoggedCutNotDropped: a guest's aios.log message, or one
// output line, longer than the output budget (64 KiB a second by
// default) was charged its whole length before being cut to 4 KiB, so it
// was never logged at all, not even cut: only "guest output suppressed"
// said its bytes were dropped. A line is charged what is logged of it.
func TestLongLineLoggedCutNotDropped(t *testing.T) {
	var out bytes.Buffer
	const budget = 64 << 10
	s := newLogSink(slog.New(slog.NewTextHandler(&out, nil)), budget, false)
	s.log(slog.LevelWarn, []byte("start "+strings.Repeat("x", 100<<10)), nil)
	if got := out.String(); !strings.Contains(got, "msg=\"start xxx") && !strings.Contains(got, "msg=start xxx") || !strings.Contains(got, "truncated=true") {
		t.Fatalf("a 100 KiB aios.log message under a %d-byte budget: logged %q, want its first 4 KiB marked truncated", budget, got[:min(len(got), 200)])
	}
	out.Reset()
	var o lines
	o.s = s
	stream{s, 0, &o}.Write([]byte("line " + strings.Repeat("y", 100<<10) + "\n"))
	if got := out.String(); !strings.Contains(got, "line yyy") || !strings.Contains(got, "truncated=true") {
		t.Fatalf("a 100 KiB stdout line: logged %q, want its first 4 KiB marked truncated", got[:min(len(got), 200)])
	}
	// The budget still holds: what is logged is charged.
	out.Reset()
	for range 40 {
		s.log(slog.LevelInfo, []byte(strings.Repeat("z", 100<<10)), nil)
	}
	if n := strings.Count(out.String(), "truncated=true"); n == 0 || n*maxLine > budget {
		t.Fatalf("40 long messages: %d logged, %d bytes, past the %d-byte budget", n, n*maxLine, budget)
	}
}
