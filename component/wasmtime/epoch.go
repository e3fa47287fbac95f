//go:build wasmtime

package wasmtime

// #include "capi.h"
import "C"

import (
	"runtime/cgo"
	"time"

	"github.com/aios-host/aios-host/internal/guestcheck"
)

// Epochs: every store has a callback (helpers.c, aios_epoch_cb) and a
// deadline one tick ahead, so that every EpochInterval a running guest
// checks whether its caller cancelled (Cancelled, as the wazero component
// watchdog does) or its deadline passed (Timeout). An epoch deadline alone
// stops a guest only at its call's deadline.

//export aiosComponentEpoch
func aiosComponentEpoch(h C.uintptr_t) C.int {
	inst, ok := cgo.Handle(h).Value().(*instance)
	if !ok {
		return C.int(guestcheck.Deadline)
	}
	ctx := inst.startCtx
	if st := inst.state; st != nil {
		ctx = st.ctx
	}
	v := guestcheck.Check(ctx, inst.dl)
	if v == guestcheck.Cancelled {
		inst.cancelled = true
	}
	return C.int(v)
}

// setDeadline arms the store for guest code that must end at dl.
func (inst *instance) setDeadline(dl time.Time) {
	inst.dl = dl
	inst.cancelled = false
	C.wasmtime_context_set_epoch_deadline(inst.cx, 1)
}
