//go:build wasmtime

package wasmtime

// #include <stdint.h>
// #include <stddef.h>
import "C"

import (
	"bytes"
	"log/slog"
	"runtime/cgo"
	"unsafe"
)

// A component's wasi:cli/stdout and stderr go into the call's log as on
// wazero (component/wasi.go, docs/components.md "WASI 0.2 subset"): one
// record per line (stream=stdout|stderr), 64 KiB per call, then dropped
// with a warning; output outside a call (start code) is dropped. wasmtime
// calls aiosComponentOutput for every write, on the guest's thread
// (helpers.c). Before, wasi_config_new's default dropped all of it.

// maxGuestOutput caps what one call may write to stdout+stderr.
const maxGuestOutput = 64 << 10

//export aiosComponentOutput
func aiosComponentOutput(h C.uintptr_t, stderr C.int, buf *C.uchar, n C.size_t) {
	inst, ok := cgo.Handle(h).Value().(*instance)
	if !ok || inst.state == nil || n == 0 {
		return
	}
	st := inst.state
	if st.env == nil || st.outBytes >= maxGuestOutput {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n))
	st.output(stderr != 0, b)
}

func (st *callState) output(stderr bool, b []byte) {
	if room := maxGuestOutput - st.outBytes; len(b) > room {
		b = b[:room]
	}
	st.outBytes += len(b)
	i := 0
	if stderr {
		i = 1
	}
	st.outBuf[i] = append(st.outBuf[i], b...) // a copy: b is wasmtime's
	for {
		nl := bytes.IndexByte(st.outBuf[i], '\n')
		if nl < 0 {
			break
		}
		st.emit(stderr, st.outBuf[i][:nl])
		st.outBuf[i] = st.outBuf[i][nl+1:]
	}
	if st.outBytes >= maxGuestOutput {
		st.flushOutput()
		st.env.Logger().Warn("guest output capped", "limit_bytes", maxGuestOutput)
	}
}

// flushOutput logs what is left of unterminated output lines (at the end
// of a call).
func (st *callState) flushOutput() {
	if st.env == nil {
		return
	}
	for i, b := range st.outBuf {
		if len(b) > 0 {
			st.emit(i == 1, b)
			st.outBuf[i] = nil
		}
	}
}

func (st *callState) emit(stderr bool, line []byte) {
	level, stream := slog.LevelInfo, "stdout"
	if stderr {
		level, stream = slog.LevelWarn, "stderr"
	}
	st.env.Logger().Log(st.ctx, level, string(line), "stream", stream)
}
