package js

import (
	"fmt"
	"log/slog"

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

// logGate bounds one provider's guest log lines.
type logGate struct{ b *linebudget.Budget }

func newLogGate(logger *slog.Logger) *logGate {
	return &logGate{b: linebudget.New(logLinesPerSecond, func(n int) {
		logger.Warn("js log lines suppressed", "lines", n, "limit", fmt.Sprintf("%d lines a second per provider", logLinesPerSecond))
	})}
}

// line returns msg as it may be logged (cut past maxLogLine), or false
// when the budget is spent. A nil gate only cuts.
func (g *logGate) line(msg string) (string, bool) {
	if g != nil && !g.b.Allow() {
		return "", false
	}
	if len(msg) > maxLogLine {
		msg = fmt.Sprintf("%s … (%d more bytes cut)", msg[:maxLogLine], len(msg)-maxLogLine)
	}
	return msg, true
}
