//go:build !linux

// Package seccomp installs the seccomp filter of worker processes; it is
// Linux only.
package seccomp

import "errors"

var errNotLinux = errors.New("seccomp is Linux only")

// InstallThread reports that there is no seccomp here.
func InstallThread(bool, bool) error { return errNotLinux }

// InstallProcess reports that there is no seccomp here.
func InstallProcess(bool, bool) error { return errNotLinux }

// InstallSelfProcess reports that there is no seccomp here.
func InstallSelfProcess() error { return errNotLinux }
