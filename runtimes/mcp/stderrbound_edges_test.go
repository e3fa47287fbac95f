package mcp

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestStderrLinesBounded: a stdio server's stderr lines were logged at
// debug as they came, whole and without a limit: one line of a megabyte
// (a dumped request, a minified stack) was a log record of a megabyte, and
// a server printing in a loop flooded the log at --log-level debug, where
// the guests of every other runtime have a budget. A line is cut at
// maxStderrLine bytes, and at most stderrLinesPerSecond a second are
// logged, the rest counted in a warning.
func TestStderrLinesBounded(t *testing.T) {
	var out bytes.Buffer
	w := &logWriter{log: slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})), server: "s"}
	w.Write([]byte("big " + strings.Repeat("x", 1<<20) + "\n"))
	if n := out.Len(); n > 2*maxStderrLine || !strings.Contains(out.String(), "truncated_bytes=") {
		t.Fatalf("a 1 MiB stderr line was logged as a record of %d bytes (%.120q…); want it cut at %d bytes, saying so", n, out.String(), maxStderrLine)
	}
	out.Reset()
	for i := range 1000 {
		w.Write([]byte("line " + strings.Repeat("y", i%7) + "\n"))
	}
	w.flushSuppressed()
	got := out.String()
	if n := strings.Count(got, "mcp server stderr\""); n > stderrLinesPerSecond || n == 0 {
		t.Fatalf("1000 stderr lines at once: %d logged; want at most %d", n, stderrLinesPerSecond)
	}
	if !strings.Contains(got, "mcp server stderr lines suppressed") || !strings.Contains(got, "server=s") {
		t.Fatalf("1000 stderr lines at once: no warning of the suppressed ones naming the server: %q", got[max(0, len(got)-300):])
	}
	// What the level filters out costs nothing and is not reported; the
	// tail for a failed start is still kept.
	out.Reset()
	w = &logWriter{log: slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo})), server: "s"}
	for range 1000 {
		w.Write([]byte("quiet\n"))
	}
	w.flushSuppressed()
	if out.Len() != 0 || w.tail() == "" {
		t.Fatalf("1000 stderr lines at level info: logged %q, tail %q", out.String(), w.tail())
	}
}

// TestStderrCRLFLines: a server writing CRLF line ends (one built for
// Windows, a Python one with newline="\r\n") had each stderr line logged
// and quoted in the start-failure warning with a "\r" at its end. The CR
// of a CRLF is part of the line end, as Python's worker stderr drops it.
func TestStderrCRLFLines(t *testing.T) {
	var out bytes.Buffer
	w := &logWriter{log: slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})), server: "s"}
	w.Write([]byte("first\r\nfatal: no key\r\n"))
	if got := out.String(); strings.Contains(got, `\r`) || !strings.Contains(got, "line=first") {
		t.Fatalf("CRLF stderr lines logged as %q; want the lines without their CR", got)
	}
	if tail := w.tail(); tail != "first | fatal: no key" {
		t.Fatalf("tail %q; want %q", tail, "first | fatal: no key")
	}
}
