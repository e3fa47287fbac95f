// Package guestcheck is the periodic check of a running WebAssembly guest
// on the wasmtime engines (core modules and components): each epoch tick
// asks whether the guest may go on, and why not.
package guestcheck

import (
	"context"
	"errors"
	"time"
)

// Verdict of a check. The values are those the engines' C epoch callbacks
// switch on.
type Verdict int

const (
	GoOn      Verdict = 0 // run another tick
	Cancelled Verdict = 1 // the caller cancelled
	Deadline  Verdict = 2 // the call's deadline passed
)

// Check judges a guest running for ctx (nil: none) that must end by dl
// (zero: no deadline of its own).
func Check(ctx context.Context, dl time.Time) Verdict {
	if ctx != nil {
		if err := ctx.Err(); errors.Is(err, context.DeadlineExceeded) {
			return Deadline
		} else if err != nil {
			return Cancelled
		}
	}
	if !dl.IsZero() && !time.Now().Before(dl) {
		return Deadline
	}
	return GoOn
}
