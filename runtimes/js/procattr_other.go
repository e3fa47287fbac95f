//go:build !linux

package js

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
)

func workerProcAttr() *syscall.SysProcAttr { return nil }

func startWorker(cmd *exec.Cmd, confine bool) (string, error) {
	why := ""
	if confine {
		why = "worker confinement (Landlock) is Linux only"
	}
	return why, cmd.Start()
}

func protectStdout() (*os.File, error) { return os.Stdout, nil }

func pollStdin() (io.Reader, error) { return nil, errors.New("stdin stays blocking here") }

func confineSelf() error { return errors.New("seccomp is Linux only") }
