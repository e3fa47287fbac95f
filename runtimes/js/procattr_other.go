//go:build !linux

package js

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"

	"github.com/aios-host/aios-host/internal/cloexec"
)

func workerProcAttr() *syscall.SysProcAttr { return nil }

func startWorker(cmd *exec.Cmd, confine bool) (string, error) {
	why := ""
	if confine {
		why = "worker confinement (Landlock) is Linux only"
	}
	cloexec.Stray() // (a descriptor the host inherited without close-on-exec)
	return why, cmd.Start()
}

func protectStdout() (*os.File, error) { return os.Stdout, nil }

func pollStdin() (io.Reader, error) { return nil, errors.New("stdin stays blocking here") }

func confineSelf() error { return errors.New("seccomp is Linux only") }
