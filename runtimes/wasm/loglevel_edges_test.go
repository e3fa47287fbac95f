package wasm

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestFilteredLevelNotCharged: with the host's log level at warn, a
// guest's stdout (logged at info) and its aios.log debug lines are never
// shown, yet they were charged to the output budget: a chatty guest then
// had its aios.log warnings dropped and a "guest output suppressed"
// warning counted bytes nobody would have seen. Lines the level filters
// out cost nothing.
func TestFilteredLevelNotCharged(t *testing.T) {
	var out bytes.Buffer
	const budget = 1000
	s := newLogSink(slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn})), budget, false)
	var o lines
	o.s = s
	for range 50 {
		stream{s, 0, &o}.Write([]byte(strings.Repeat("i", 100) + "\n"))
		s.log(slog.LevelDebug, []byte(strings.Repeat("d", 100)), nil)
	}
	s.log(slog.LevelWarn, []byte("the warning"), nil)
	got := out.String()
	if !strings.Contains(got, "the warning") {
		t.Fatalf("a warning after 10 KB of info and debug output at level warn, budget %d bytes: not logged; log: %q", budget, got)
	}
	if s.dropped != 0 {
		t.Fatalf("output the level filters out was counted dropped (%d bytes), to be reported suppressed", s.dropped)
	}
}
