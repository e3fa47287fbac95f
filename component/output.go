package component

import (
	"bytes"
	"context"
	"log/slog"
	"unicode/utf8"
)

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
	n   int
	buf [2][]byte // unterminated stdout / stderr lines
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
		emitOutput(ctx, log, stderr, o.buf[i][:nl])
		o.buf[i] = o.buf[i][nl+1:]
	}
	if o.Full() {
		o.Flush(ctx, log)
		log.Warn("guest output capped", "limit_bytes", MaxGuestOutput)
	}
}

// Flush logs what is left of unterminated lines (at the end of a call).
func (o *GuestOutput) Flush(ctx context.Context, log *slog.Logger) {
	for i, b := range o.buf {
		if len(b) > 0 {
			emitOutput(ctx, log, i == 1, b)
			o.buf[i] = nil
		}
	}
}

func emitOutput(ctx context.Context, log *slog.Logger, stderr bool, line []byte) {
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
func GuestLog(ctx context.Context, log *slog.Logger, logged *int, level slog.Level, msg string) {
	if !log.Enabled(ctx, level) {
		return
	}
	*logged++
	if *logged > MaxLogMessages {
		if *logged == MaxLogMessages+1 {
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
	log.Log(ctx, level, msg)
}
