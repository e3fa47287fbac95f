//go:build !linux

// Package proclimit bounds the memory and the output of a helper process
// the host starts from its own executable (the JS bundler and workers, the
// WASM compiler).
package proclimit

import "errors"

// LimitData is not available here: the process runs without a hard limit.
func LimitData(int64) error { return errors.New("no RLIMIT_DATA on this system") }
