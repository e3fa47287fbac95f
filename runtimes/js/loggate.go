package js

import (
	"fmt"
	"log/slog"
	"unicode/utf8"

	"github.com/aios-host/aios-host/internal/linebudget"
)

// Guest log limits, as for Python workers: a provider's console and
// ctx.log lines reach the host log at most logLinesPerSecond a second (the
// rest are counted and reported), each cut at maxLogLine bytes. An
// untrusted file printing in a loop must not flood the log or the host's
// memory.
const (
	logLinesPerSecond = 100
	maxLogLine        = 64 << 10
)

// workerLogLinesPerSecond bounds the log records the host takes from a
// worker process a second. The worker gates its provider's lines itself
// (the same logGate), so this bounds only a worker that does not; at the
// worker's own rate it swallowed the worker's report of the lines it
// suppressed, which comes with the window's lines, and reported "lines=1"
// (TestLogFloodReportArrives). Two of the worker's windows may fall in
// one of the host's.
const workerLogLinesPerSecond = 3 * logLinesPerSecond

// logGate bounds one provider's guest log lines.
type logGate struct{ b *linebudget.Budget }

func newLogGate(logger *slog.Logger, perSecond int) *logGate {
	return &logGate{b: linebudget.New(perSecond, func(n int) {
		logger.Warn("js log lines suppressed", "lines", n, "limit", fmt.Sprintf("%d lines a second per provider", perSecond))
	})}
}

// flush reports the lines suppressed so far now, rather than at the end
// of the budget's window: a worker process does so before it sends a
// call's result, which its host reads, where a report sent later waited
// in the pipe for the provider's next call.
func (g *logGate) flush() {
	if g != nil {
		g.b.Flush()
	}
}

// line returns msg as it may be logged (cut past maxLogLine), or false
// when the budget is spent. A nil gate only cuts.
func (g *logGate) line(msg string) (string, bool) {
	if g != nil && !g.b.Allow() {
		return "", false
	}
	if len(msg) > maxLogLine {
		n := maxLogLine
		for n > 0 && !utf8.RuneStart(msg[n]) {
			n-- // not in the middle of a character (TestLongLineCutKeepsWholeCharacters)
		}
		msg = fmt.Sprintf("%s … (%d more bytes cut)", msg[:n], len(msg)-n)
	}
	return msg, true
}
