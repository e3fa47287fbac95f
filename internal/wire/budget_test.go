package wire

import (
	"bytes"
	"log/slog"
	"strconv"
	"strings"
	"testing"
)

// A worker's frames are logged at most FramesPerSecond a second, and the
// rest counted (a tool logging in a loop flooded the debug log: 22 MB in
// 1.6 s, found by a probe).
func TestTracerBudget(t *testing.T) {
	var buf bytes.Buffer
	tr := NewTracer(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})), "json")
	for range 5 * FramesPerSecond {
		tr.Frame("in", []byte(`{"v":1}`))
	}
	tr.budget.Flush()
	out := buf.String()
	if n := strings.Count(out, `msg="wire frame"`); n != FramesPerSecond {
		t.Fatalf("%d frames logged in a burst, want %d", n, FramesPerSecond)
	}
	if !strings.Contains(out, "frames="+strconv.Itoa(4*FramesPerSecond)) {
		t.Fatalf("the frames not logged are not counted:\n%s", out[len(out)-300:])
	}
}
