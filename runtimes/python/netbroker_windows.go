//go:build windows

package python

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// errNoWorkers: python workers are started with inherited descriptors
// beyond stdin, stdout and stderr, which Windows cannot pass.
var errNoWorkers = errors.New("python tools are not supported on Windows (the workers need inherited file descriptors and unix socket pairs); run aios-host under WSL or on Linux or macOS")

func socketPair() (host, child *os.File, err error) { return nil, nil, errNoWorkers }

func sendFD(*os.File, uintptr) error { return errNoWorkers }

func shutdownFD(fd uintptr) { _ = windows.Shutdown(windows.Handle(fd), windows.SHUT_RDWR) }
