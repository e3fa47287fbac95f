//go:build windows

package js

import "errors"

// errNoProcessIsolation: the host reads a worker's pipe with read
// deadlines and a non-blocking spin (internal/pipe), which Windows pipes
// do not have, so no JS worker process is started there.
var errNoProcessIsolation = errors.New("JS worker processes (runtimes.js.isolation: process, and untrusted for Untrusted providers) are not available on Windows: its pipes cannot be read with deadlines; run aios-host on Linux or macOS, or set runtimes.js.isolation: in-process (no per-provider memory limit or confinement)")

// stdinReadyOrUnpollable: a Windows pipe cannot be polled, so the worker
// does not spin on it.
func stdinReadyOrUnpollable() bool { return true }
