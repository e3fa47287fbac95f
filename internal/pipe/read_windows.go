//go:build windows

package pipe

import "syscall"

// readFD reads the pipe's handle. Windows pipes are not pollable (no
// EAGAIN, no read deadline): the worker runtimes that read through this
// package are not available on Windows (see README "Platforms").
func readFD(fd uintptr, p []byte) (int, error) { return syscall.Read(syscall.Handle(fd), p) }
