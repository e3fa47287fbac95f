package wasm

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestLogCutKeepsWholeCharacters: a guest's aios.log message (or output
// line) longer than 4 KiB was cut at byte 4096 wherever that fell, so a
// character of several bytes across the cut was logged as U+FFFD, a
// character the guest never wrote (and so was the last character of a
// stderr line quoted in a load or crash error, cut at its own length). The
// cut now falls before the character it would split; bytes that are not
// UTF-8 are still replaced.
func TestLogCutKeepsWholeCharacters(t *testing.T) {
	var out bytes.Buffer
	s := newLogSink(slog.New(slog.NewTextHandler(&out, nil)), 1<<20, false)
	s.log(slog.LevelInfo, []byte(strings.Repeat("a", maxLine-1)+strings.Repeat("é", 10)), nil)
	got := out.String()
	if strings.Contains(got, "\uFFFD") {
		t.Fatalf("the cut message ends with U+FFFD: …%q", got[max(0, strings.Index(got, " guest=")-20):])
	}
	if !strings.Contains(got, "msg="+strings.Repeat("a", maxLine-1)+" ") || !strings.Contains(got, "truncated=true") {
		t.Fatalf("want the %d a's before the é the cut would split, marked truncated: …%q", maxLine-1, got[max(0, strings.Index(got, " guest=")-20):])
	}
	out.Reset()
	s.log(slog.LevelInfo, []byte(strings.Repeat("b", maxLine-1)+"\xff\xfe"), nil)
	if !strings.Contains(out.String(), "\uFFFD") {
		t.Fatalf("an invalid byte at the cut is no longer replaced: %q", out.String())
	}
	line := strings.Repeat("c", stderrTailLine-1) + "ü tail"
	if got := tailLine([]byte(line)); strings.Contains(got, "\uFFFD") || got != strings.Repeat("c", stderrTailLine-1) {
		t.Fatalf("tailLine cut: …%q", got[max(0, len(got)-10):])
	}
}
