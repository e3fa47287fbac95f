//go:build wasmtime && !linux

package wasm

import wt "github.com/bytecodealliance/wasmtime-go/v39"

// guestOutput is nil here: without /proc/self/fd, a wasmtime guest's
// stdout and stderr are discarded (wasmtime-go's WASI configuration takes
// file paths, not writers).
type guestOutput struct{}

func newGuestOutput(*logSink) (*guestOutput, error) { return nil, nil }

func (*guestOutput) configure(*wt.WasiConfig) error { return nil }
func (*guestOutput) drain()                         {}
func (*guestOutput) close()                         {}
