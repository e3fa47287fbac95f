//go:build !linux

// Package seccomp installs the seccomp filter of worker processes; it is
// Linux only.
package seccomp

import "errors"

var errNotLinux = errors.New("seccomp is Linux only")

// Rule is a refusal a filter adds to the fixed ones.
type Rule int

// OwnScheduling limits the scheduling calls to the calling process.
const OwnScheduling Rule = 1

// InstallThread reports that there is no seccomp here.
func InstallThread(bool, bool, ...Rule) error { return errNotLinux }

// InstallProcess reports that there is no seccomp here.
func InstallProcess(bool, bool) error { return errNotLinux }

// InstallSelfProcess reports that there is no seccomp here.
func InstallSelfProcess() error { return errNotLinux }
