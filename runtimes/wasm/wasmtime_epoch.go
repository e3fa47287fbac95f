//go:build wasmtime

package wasm

/*
#include <stdint.h>

typedef struct wasmtime_store wasmtime_store_t;
typedef struct wasmtime_context wasmtime_context_t;
typedef struct wasmtime_error wasmtime_error_t;
extern void wasmtime_store_epoch_deadline_callback(wasmtime_store_t *store,
	wasmtime_error_t *(*func)(wasmtime_context_t *, void *, uint64_t *, uint8_t *),
	void *data, void (*finalizer)(void *));
extern wasmtime_error_t *aios_wt_epoch_cb(wasmtime_context_t *, void *, uint64_t *, uint8_t *);

static void aios_wt_set_epoch_cb(void *store, uintptr_t h) {
	wasmtime_store_epoch_deadline_callback((wasmtime_store_t *)store, aios_wt_epoch_cb, (void *)h, 0);
}
*/
import "C"

import (
	"reflect"
	"runtime"
	"runtime/cgo"
	"time"
	"unsafe"

	wt "github.com/bytecodealliance/wasmtime-go/v39"

	"github.com/aios-host/aios-host/internal/guestcheck"
)

// Cancellation on wasmtime. An epoch deadline stops a guest only at the
// call's deadline; wazero's watchdog also stops one whose caller cancelled
// (instance.call, Cancelled). So each store gets an epoch-deadline callback
// and a deadline of one tick: at every tick (DeadlineGranularity) a running
// guest asks aiosWtEpoch whether its call was cancelled or is past its
// deadline, and otherwise goes on for another tick. The callback runs on
// the goroutine's own thread inside the guest call, like a host function.

// storePtrOK: wasmtime-go's Store keeps its wasmtime_store_t* in its first
// field, which the callback needs (the C API sets it on the store, not on
// the context wasmtime-go exposes).
var storePtrOK = func() bool {
	f, ok := reflect.TypeOf(wt.Store{}).FieldByName("_ptr")
	return ok && f.Offset == 0 && f.Type.Kind() == reflect.Pointer
}()

//export aiosWtEpoch
func aiosWtEpoch(h C.uintptr_t) C.int {
	inst, ok := cgo.Handle(h).Value().(*wtInstance)
	if !ok {
		return C.int(guestcheck.Deadline)
	}
	if inst.shim.cur != nil && inst.p.l.drain.closing.Load() {
		// As wazero's Loader.Close (stopAll): a call in the guest is
		// stopped, Unavailable (inst.call).
		inst.closing = true
		return C.int(guestcheck.Deadline)
	}
	v := guestcheck.Check(inst.shim.callCtx, inst.dl)
	if v == guestcheck.Cancelled {
		inst.cancelled = true
	}
	return C.int(v)
}

// watchEpochs installs the callback on inst's store; false when it cannot
// (the caller then keeps deadline-only epochs).
func (inst *wtInstance) watchEpochs() bool {
	if !storePtrOK {
		return false
	}
	inst.handle = cgo.NewHandle(inst)
	ptr := *(*unsafe.Pointer)(unsafe.Pointer(inst.store))
	C.aios_wt_set_epoch_cb(ptr, C.uintptr_t(inst.handle))
	runtime.KeepAlive(inst.store)
	return true
}

// setDeadline arms the store for a guest call that must end at dl.
func (inst *wtInstance) setDeadline(dl time.Time) {
	inst.dl = dl
	inst.cancelled, inst.closing = false, false
	if inst.handle != 0 {
		inst.store.SetEpochDeadline(1)
		return
	}
	inst.store.SetEpochDeadline(inst.p.l.ticks(time.Until(dl)))
}

// unwatch releases inst's handle (its store is closed).
func (inst *wtInstance) unwatch() {
	if inst.handle != 0 {
		inst.handle.Delete()
		inst.handle = 0
	}
}
