package component

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"unicode/utf8"

	"github.com/aios-host/aios-host/internal/linebudget"
)

// LinesPerSecond bounds the lines one component provider puts in the host
// log a second (stdout, stderr and aios:sdk/log together), as for JS and
// Python: the per-call caps alone let a client calling a chatty tool in a
// loop flood the log.
const LinesPerSecond = 100

// LineGate is a provider's budget of LinesPerSecond log lines, shared by
// its calls; the lines over it are counted and reported in a warning on
// the logger of the call that last logged. A nil gate lets every line
// through.
type LineGate struct {
	b   *linebudget.Budget
	log atomic.Pointer[slog.Logger]
}

// NewLineGate returns a provider's gate.
func NewLineGate() *LineGate {
	g := &LineGate{}
	g.b = linebudget.New(LinesPerSecond, func(n int) {
		if l := g.log.Load(); l != nil {
			l.Warn("component log lines suppressed", "lines", n, "limit", fmt.Sprintf("%d lines a second per provider", LinesPerSecond))
		}
	})
	return g
}

// allow reports whether one more line may be logged on log now.
func (g *LineGate) allow(log *slog.Logger) bool {
	if g == nil {
		return true
	}
	g.log.Store(log)
	return g.b.Allow()
}

// MaxGuestOutput caps what one call may write to stdout and stderr
// together.
const MaxGuestOutput = 64 << 10

// GuestOutput turns what a component writes to stdout and stderr during
// one call into lines on the call's logger (stdout at info, stderr at
// warn, with "stream"), at most MaxGuestOutput bytes a call; both engines
// use it (wazero here, wasmtime through its write callbacks). The zero
// value is ready; it is not safe for concurrent use (a call's writes come
// from its guest's thread).
type GuestOutput struct {
	// Gate is the provider's line budget (nil: none).
	Gate *LineGate
	n    int
	buf  [2][]byte // unterminated stdout / stderr lines
}

// Written reports whether the call has written anything.
func (o *GuestOutput) Written() bool { return o.n > 0 }

// Full reports whether the call has written MaxGuestOutput bytes.
func (o *GuestOutput) Full() bool { return o.n >= MaxGuestOutput }

// Write takes b (copied) written to stdout or stderr and logs each line it
// completes. A stream whose level log filters out (stdout under a host
// log level of warn) is dropped uncharged: never shown, its bytes spent
// the budget of the lines that are, and stderr's warning after 64 KiB of
// stdout was dropped, where a core WASM module's is logged
// (TestGuestOutputFilteredNotCharged).
func (o *GuestOutput) Write(ctx context.Context, log *slog.Logger, stderr bool, b []byte) {
	if o.Full() {
		return
	}
	level := slog.LevelInfo
	if stderr {
		level = slog.LevelWarn
	}
	if !log.Enabled(ctx, level) {
		return
	}
	if room := MaxGuestOutput - o.n; len(b) > room {
		b = b[:room]
	}
	o.n += len(b)
	i := 0
	if stderr {
		i = 1
	}
	o.buf[i] = append(o.buf[i], b...)
	for {
		nl := bytes.IndexByte(o.buf[i], '\n')
		if nl < 0 {
			break
		}
		o.emit(ctx, log, stderr, o.buf[i][:nl])
		o.buf[i] = o.buf[i][nl+1:]
	}
	if o.Full() {
		o.Flush(ctx, log)
		if o.Gate.allow(log) {
			log.Warn("guest output capped", "limit_bytes", MaxGuestOutput)
		}
	}
}

// Flush logs what is left of unterminated lines (at the end of a call).
func (o *GuestOutput) Flush(ctx context.Context, log *slog.Logger) {
	for i, b := range o.buf {
		if len(b) > 0 {
			o.emit(ctx, log, i == 1, b)
			o.buf[i] = nil
		}
	}
}

func (o *GuestOutput) emit(ctx context.Context, log *slog.Logger, stderr bool, line []byte) {
	if !o.Gate.allow(log) {
		return
	}
	level, stream := slog.LevelInfo, "stdout"
	if stderr {
		level, stream = slog.LevelWarn, "stderr"
	}
	log.Log(ctx, level, string(line), "stream", stream)
}

// Limits of aios:sdk/log.log, per call, on both engines.
const (
	MaxLogMessages     = 1000
	MaxLogMessageBytes = 4 << 10
)

// GuestLog logs message msg of aios:sdk/log.log at level on the call's
// logger; logged counts the call's messages. A message longer than
// MaxLogMessageBytes is cut at a character boundary (cutting at the byte
// left half a character, which the log handler turned into U+FFFD) and
// ends with "…"; the messages past MaxLogMessages are dropped, with one
// warning saying so. A message at a level log filters out is not
// counted: never shown, it must not spend the budget of those that are
// (it did, and a warning after 1,000 filtered debug lines was dropped,
// where JS, WASM and Python log it: TestGuestLogFilteredNotCounted).
// gate is the provider's line budget (nil: none).
func GuestLog(ctx context.Context, log *slog.Logger, gate *LineGate, logged *int, level slog.Level, msg string) {
	if !log.Enabled(ctx, level) {
		return
	}
	*logged++
	if *logged > MaxLogMessages {
		if *logged == MaxLogMessages+1 && gate.allow(log) {
			log.Warn("guest log capped: the rest of this call's aios:sdk/log messages are dropped", "limit_messages", MaxLogMessages)
		}
		return
	}
	if len(msg) > MaxLogMessageBytes {
		cut := MaxLogMessageBytes
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	if gate.allow(log) {
		log.Log(ctx, level, msg)
	}
}
