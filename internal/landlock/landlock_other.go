//go:build !linux

// Package landlock restricts a thread to a set of paths with Linux
// Landlock; elsewhere it reports that it cannot.
package landlock

import (
	"errors"
	"runtime"
)

// Rule lets a restricted thread read (and execute from) Path; Write also
// lets it write a file.
type Rule struct {
	Path  string
	Write bool
}

var errNotLinux = errors.New("Landlock is Linux only")

// Version reports that there is no Landlock here.
func Version() (int, error) { return 0, errNotLinux }

// RestrictThread reports that there is no Landlock here.
func RestrictThread(int, []Rule, bool) error { return errNotLinux }

// GoLocked runs fn on a new goroutine locked for good to its OS thread.
func GoLocked(fn func()) {
	go func() {
		runtime.LockOSThread()
		fn()
	}()
}
