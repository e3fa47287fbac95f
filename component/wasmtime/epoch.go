//go:build wasmtime

package wasmtime

// #include "capi.h"
import "C"

import (
	"context"
	"errors"
	"runtime/cgo"
	"time"
)

// Epochs: every store has a callback (helpers.c, aios_epoch_cb) and a
// deadline one tick ahead, so that every EpochInterval a running guest
// checks whether its caller cancelled (Cancelled, as the wazero component
// watchdog does) or its deadline passed (Timeout). An epoch deadline alone
// stops a guest only at its call's deadline.

// Answers of aiosComponentEpoch.
const (
	epochGoOn = iota
	epochCancelled
	epochDeadline
)

//export aiosComponentEpoch
func aiosComponentEpoch(h C.uintptr_t) C.int {
	inst, ok := cgo.Handle(h).Value().(*instance)
	if !ok {
		return epochDeadline
	}
	if st := inst.state; st != nil && st.ctx != nil {
		if err := st.ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
			return epochDeadline
		} else if err != nil {
			inst.cancelled = true
			return epochCancelled
		}
	}
	if !time.Now().Before(inst.dl) {
		return epochDeadline
	}
	return epochGoOn
}

// setDeadline arms the store for guest code that must end at dl.
func (inst *instance) setDeadline(dl time.Time) {
	inst.dl = dl
	inst.cancelled = false
	C.wasmtime_context_set_epoch_deadline(inst.cx, 1)
}
