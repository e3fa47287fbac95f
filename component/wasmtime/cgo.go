//go:build wasmtime

package wasmtime

/*
#include "capi.h"

extern wasmtime_error_t *aios_add_func(wasmtime_component_linker_instance_t *li, const char *name, size_t n, uintptr_t id);
extern wasmtime_store_t *aios_store_new(wasm_engine_t *e, uintptr_t data);
extern uintptr_t aios_store_data(wasmtime_context_t *c);
extern wasi_config_t *aios_wasi_config_new(uintptr_t data);
extern wasm_engine_t *aios_engine_new(bool fuel);
extern void aios_vals_delete(wasmtime_component_val_t *v, size_t n);
*/
import "C"

import (
	"errors"
	"unsafe"

	// The Go bindings link libwasmtime.a (their cgo LDFLAGS); this package
	// calls its C component API directly.
	_ "github.com/bytecodealliance/wasmtime-go/v39"
)

type cval = C.wasmtime_component_val_t

const valSize = C.sizeof_wasmtime_component_val_t

// takeError turns a wasmtime_error_t into a Go error and deletes it.
func takeError(e *C.wasmtime_error_t) error {
	if e == nil {
		return nil
	}
	var msg C.wasm_name_t
	C.wasmtime_error_message(e, &msg)
	s := C.GoStringN(msg.data, C.int(msg.size))
	C.wasm_byte_vec_delete(&msg)
	C.wasmtime_error_delete(e)
	return errors.New(s)
}

// newError makes a wasmtime_error_t (owned by wasmtime once returned).
func newError(msg string) *C.wasmtime_error_t {
	cs := C.CString(msg)
	defer C.free(unsafe.Pointer(cs))
	return C.wasmtime_error_new(cs)
}

// setName sets a wasm_name_t to a copy of s (allocated by wasmtime).
func setName(n *C.wasm_name_t, s string) {
	if len(s) == 0 {
		C.wasm_byte_vec_new(n, 0, nil)
		return
	}
	b := unsafe.StringData(s)
	C.wasm_byte_vec_new(n, C.size_t(len(s)), (*C.char)(unsafe.Pointer(b)))
}

// nameString copies a wasm_name_t.
func nameString(n *C.wasm_name_t) string {
	if n.size == 0 {
		return ""
	}
	return C.GoStringN(n.data, C.int(n.size))
}

func nameBytes(n *C.wasm_name_t) []byte {
	if n.size == 0 {
		return []byte{}
	}
	return C.GoBytes(unsafe.Pointer(n.data), C.int(n.size))
}

// allocVals returns n zeroed values in C memory (kind 0 = bool false, safe
// to delete).
func allocVals(n int) *cval {
	if n == 0 {
		n = 1
	}
	return (*cval)(C.calloc(C.size_t(n), valSize))
}

func freeVals(v *cval, n int) { C.aios_vals_delete(v, C.size_t(n)) }

func valsSlice(v *cval, n int) []cval {
	if n == 0 || v == nil {
		return nil
	}
	return unsafe.Slice(v, n)
}

// union accessors: cgo represents the union as a byte array.
func ofPtr[T any](v *cval) *T { return (*T)(unsafe.Pointer(&v.of)) }
