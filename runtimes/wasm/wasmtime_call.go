//go:build wasmtime

package wasm

/*
#include <stdint.h>
#include <stddef.h>
#include <string.h>

// Layouts of the wasmtime C API (v39, build/include/wasmtime/{extern,val}.h
// of wasmtime-go), which cgo cannot reach from this module.
typedef struct wasmtime_context wasmtime_context_t;
typedef struct wasmtime_error wasmtime_error_t;
typedef struct wasm_trap_t wasm_trap_t;
typedef struct aios_wt_func { uint64_t store_id; void *private_; } aios_wt_func;
typedef struct aios_wt_ref { uint64_t store_id; uint32_t p1; uint32_t p2; void *p3; } aios_wt_ref;
typedef union aios_wt_valunion {
	int32_t i32; int64_t i64; float f32; double f64;
	aios_wt_ref ref; aios_wt_func funcref; uint8_t v128[16];
} aios_wt_valunion;
typedef struct aios_wt_val { uint8_t kind; aios_wt_valunion of; } aios_wt_val;

extern wasmtime_error_t *wasmtime_func_call(wasmtime_context_t *, const aios_wt_func *,
	const aios_wt_val *, size_t, aios_wt_val *, size_t, wasm_trap_t **);

typedef struct wasmtime_store wasmtime_store_t;
typedef struct wasmtime_caller wasmtime_caller_t;
typedef struct aios_wt_memory { struct { uint64_t store_id; uint32_t p1; }; uint32_t p2; } aios_wt_memory;
extern wasmtime_context_t *wasmtime_store_context(wasmtime_store_t *);
extern wasmtime_context_t *wasmtime_caller_context(wasmtime_caller_t *);
extern uint8_t *wasmtime_memory_data(const wasmtime_context_t *, const aios_wt_memory *);
extern size_t wasmtime_memory_data_size(const wasmtime_context_t *, const aios_wt_memory *);

typedef struct aios_wt_mem { uint8_t *data; size_t n; } aios_wt_mem;

// aios_wt_mem_data is a memory's data and size, in a store (caller NULL)
// or in a host function's caller.
static aios_wt_mem aios_wt_mem_data(uintptr_t store, uintptr_t caller, uint64_t store_id, uint32_t p1, uint32_t p2) {
	wasmtime_context_t *cx = caller ? wasmtime_caller_context((wasmtime_caller_t *)caller)
		: wasmtime_store_context((wasmtime_store_t *)store);
	aios_wt_memory m;
	memset(&m, 0, sizeof m);
	m.store_id = store_id;
	m.p1 = p1;
	m.p2 = p2;
	aios_wt_mem r = { wasmtime_memory_data(cx, &m), wasmtime_memory_data_size(cx, &m) };
	return r;
}

typedef struct aios_wt_extern {
	uint8_t kind;
	union { aios_wt_func func; aios_wt_memory memory; uint8_t pad[64]; } of; // at least wasmtime_extern_union
} aios_wt_extern;
extern _Bool wasmtime_caller_export_get(wasmtime_caller_t *, const char *, size_t, aios_wt_extern *);
extern void wasmtime_extern_delete(aios_wt_extern *);

// aios_wt_caller_memory is the data and size of the calling instance's
// export "memory" (none: NULL, 0).
static aios_wt_mem aios_wt_caller_memory(uintptr_t caller) {
	aios_wt_mem r = { 0, 0 };
	aios_wt_extern e;
	memset(&e, 0, sizeof e);
	if (!wasmtime_caller_export_get((wasmtime_caller_t *)caller, "memory", 6, &e)) {
		return r;
	}
	if (e.kind == 3) { // WASMTIME_EXTERN_MEMORY
		wasmtime_context_t *cx = wasmtime_caller_context((wasmtime_caller_t *)caller);
		r.data = wasmtime_memory_data(cx, &e.of.memory);
		r.n = wasmtime_memory_data_size(cx, &e.of.memory);
	}
	wasmtime_extern_delete(&e);
	return r;
}

typedef struct aios_wt_ret { int64_t result; wasmtime_error_t *err; wasm_trap_t *trap; } aios_wt_ret;

// aios_wt_call calls a function of nargs i32 parameters and nresults (0 or
// 1) i32 or i64 results; wasmtime checks the types.
static aios_wt_ret aios_wt_call(wasmtime_context_t *cx, uint64_t store_id, uintptr_t priv,
		size_t nargs, int32_t a0, int32_t a1, size_t nresults) {
	aios_wt_func f = { store_id, (void *)priv };
	aios_wt_val args[2], res[1];
	memset(args, 0, sizeof args);
	memset(res, 0, sizeof res);
	args[0].of.i32 = a0; // kind 0 is WASMTIME_I32
	args[1].of.i32 = a1;
	aios_wt_ret r = { 0, 0, 0 };
	r.err = wasmtime_func_call(cx, &f, args, nargs, res, nresults, &r.trap);
	if (!r.err && !r.trap && nresults == 1) {
		r.result = res[0].kind == 0 ? (int64_t)res[0].of.i32 : res[0].of.i64; // 1 is WASMTIME_I64
	}
	return r;
}
*/
import "C"

import (
	"reflect"
	"runtime"
	"unsafe"

	wt "github.com/bytecodealliance/wasmtime-go/v39"
)

// Guest calls on wasmtime. wasmtime-go's Func.Call looks the function's
// type up on every call (a FuncType and a ValType per parameter and
// result, each with a finalizer), boxes arguments and results in
// interfaces and makes a cgo call per argument: about half of a core
// module's tool call on wasmtime (BenchmarkPipelineWASMEcho/wasmtime).
// wtCall makes the same call (wasmtime_func_call, which checks the types)
// in one cgo call and returns the same errors: a trap as *wt.Trap, an
// error (a WASI exit, an interrupt) as *wt.Error, and a host function's
// panic re-raised as Func.Call does.

// wtDirectOK: wasmtime-go's Func and Memory are their wasmtime_func_t (16
// bytes) and wasmtime_memory_t (24), Caller, Store, Trap and Error hold
// only their C pointer, as the calls and error values below assume;
// otherwise wtCall, wtMemData and wtCallerMem use wasmtime-go's own calls
// (TestWasmtimeDirectLayouts fails then).
var wtDirectOK = func() bool {
	one := func(v any, name string, size uintptr) bool {
		t := reflect.TypeOf(v)
		f, ok := t.FieldByName(name)
		return ok && t.NumField() == 1 && f.Offset == 0 && t.Size() == size
	}
	return one(wt.Func{}, "val", 16) && unsafe.Sizeof(C.aios_wt_func{}) == 16 &&
		one(wt.Memory{}, "val", 24) && unsafe.Sizeof(C.aios_wt_memory{}) == 24 &&
		one(wt.Caller{}, "ptr", unsafe.Sizeof(uintptr(0))) && storePtrOK &&
		unsafe.Sizeof(C.aios_wt_val{}) == 32 &&
		one(wt.Trap{}, "_ptr", unsafe.Sizeof(uintptr(0))) && one(wt.Error{}, "_ptr", unsafe.Sizeof(uintptr(0)))
}()

// wtFuncVal is the layout of wasmtime_func_t.
type wtFuncVal struct {
	storeID uint64
	priv    uintptr
}

// wtCall calls f, of len(args) (at most 2) i32 parameters and nresults
// (0 or 1) i32 or i64 results, in store s (a Store or a host function's
// Caller); inst serves a host function's panic (nil: Func.Call).
func wtCall(s wt.Storelike, inst *wtInstance, f *wt.Func, nresults int, args ...int32) (int64, error) {
	if !wtDirectOK || inst == nil || len(args) > 2 || nresults > 1 {
		return wtCallSlow(s, f, args)
	}
	var a0, a1 int32
	if len(args) > 0 {
		a0 = args[0]
	}
	if len(args) > 1 {
		a1 = args[1]
	}
	fv := (*wtFuncVal)(unsafe.Pointer(f))
	cx := (*C.wasmtime_context_t)(unsafe.Pointer(s.Context()))
	r := C.aios_wt_call(cx, C.uint64_t(fv.storeID), C.uintptr_t(fv.priv), C.size_t(len(args)), C.int32_t(a0), C.int32_t(a1), C.size_t(nresults))
	runtime.KeepAlive(s)
	runtime.KeepAlive(f)
	if r.err == nil && r.trap == nil {
		return int64(r.result), nil
	}
	var err error
	if r.err != nil {
		e := (*wt.Error)(unsafe.Pointer(&struct{ p unsafe.Pointer }{unsafe.Pointer(r.err)}))
		runtime.SetFinalizer(e, (*wt.Error).Close)
		err = e
	}
	if r.trap != nil { // Func.Call prefers the trap too
		t := (*wt.Trap)(unsafe.Pointer(&struct{ p unsafe.Pointer }{unsafe.Pointer(r.trap)}))
		runtime.SetFinalizer(t, (*wt.Trap).Close)
		err = t
	}
	inst.raisePanic(s)
	return 0, err
}

// raisePanic re-raises a panic of a host function that ran under the last
// call, as Func.Call does: wasmtime-go keeps it in the store's data, where
// only its own calls look, so it calls a function that does nothing.
func (inst *wtInstance) raisePanic(s wt.Storelike) {
	if inst.nop == nil {
		inst.nop = wt.NewFunc(s, wt.NewFuncType(nil, nil), func(*wt.Caller, []wt.Val) ([]wt.Val, *wt.Trap) { return nil, nil })
	}
	_, _ = inst.nop.Call(s)
}

// wtCallSlow is wtCall through Func.Call.
func wtCallSlow(s wt.Storelike, f *wt.Func, args []int32) (int64, error) {
	boxed := make([]any, len(args))
	for i, a := range args {
		boxed[i] = a
	}
	res, err := f.Call(s, boxed...)
	if err != nil {
		return 0, err
	}
	switch v := res.(type) {
	case int32:
		return int64(v), nil
	case int64:
		return v, nil
	}
	return 0, nil
}

// wtMemVal is the layout of wasmtime_memory_t.
type wtMemVal struct {
	storeID uint64
	p1      uint32
	_       uint32
	p2      uint32
	_       uint32
}

// wtMemData is m.UnsafeData(s) in one cgo call instead of four (a context
// for each of the data and the size): every host call reads the guest's
// memory, most twice. s is a *wt.Store or a host function's *wt.Caller.
func wtMemData(s wt.Storelike, m *wt.Memory) []byte {
	if !wtDirectOK {
		return m.UnsafeData(s)
	}
	var store, caller uintptr
	switch s := s.(type) {
	case *wt.Store:
		store = uintptr(*(*unsafe.Pointer)(unsafe.Pointer(s)))
	case *wt.Caller:
		caller = uintptr(*(*unsafe.Pointer)(unsafe.Pointer(s)))
	}
	if store == 0 && caller == 0 { // closed, returned, or another Storelike
		return m.UnsafeData(s) // which panics as before when closed
	}
	mv := (*wtMemVal)(unsafe.Pointer(m))
	r := C.aios_wt_mem_data(C.uintptr_t(store), C.uintptr_t(caller), C.uint64_t(mv.storeID), C.uint32_t(mv.p1), C.uint32_t(mv.p2))
	runtime.KeepAlive(s)
	runtime.KeepAlive(m)
	if r.data == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(r.data)), int(r.n))
}

// wtCallerMem is the calling instance's memory (its export "memory"; nil
// when it has none) in one cgo call: Caller.GetExport made an Extern with
// a finalizer, and Caller.Data (which found the instance whose memory it
// is) takes two cgo calls and wasmtime-go's global store lock.
func wtCallerMem(c *wt.Caller) []byte {
	var caller unsafe.Pointer
	if wtDirectOK {
		caller = *(*unsafe.Pointer)(unsafe.Pointer(c))
	}
	if caller == nil { // then GetExport answers nil, as before
		ex := c.GetExport(exportMemory)
		if ex == nil || ex.Memory() == nil {
			return nil
		}
		return ex.Memory().UnsafeData(c)
	}
	r := C.aios_wt_caller_memory(C.uintptr_t(uintptr(caller)))
	runtime.KeepAlive(c)
	if r.data == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(r.data)), int(r.n))
}
