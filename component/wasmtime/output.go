//go:build wasmtime

package wasmtime

// #include <stdint.h>
// #include <stddef.h>
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

// A component's wasi:cli/stdout and stderr go into the call's log as on
// wazero (component/wasi.go, docs/components.md "WASI 0.2 subset"): one
// record per line (stream=stdout|stderr), 64 KiB per call, then dropped
// with a warning; output outside a call (start code) is dropped. wasmtime
// calls aiosComponentOutput for every write, on the guest's thread
// (helpers.c). Before, wasi_config_new's default dropped all of it.

//export aiosComponentOutput
func aiosComponentOutput(h C.uintptr_t, stderr C.int, buf *C.uchar, n C.size_t) {
	inst, ok := cgo.Handle(h).Value().(*instance)
	if !ok || inst.state == nil || n == 0 {
		return
	}
	st := inst.state
	if st.env == nil || st.out.Full() {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n))
	st.out.Write(st.ctx, st.env.Logger(), stderr != 0, b) // copies b, which is wasmtime's
}

// flushOutput logs what is left of unterminated output lines (at the end
// of a call).
func (st *callState) flushOutput() {
	if st.env == nil || !st.out.Written() {
		return
	}
	st.out.Flush(st.ctx, st.env.Logger())
}
