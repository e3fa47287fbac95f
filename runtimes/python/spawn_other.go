//go:build unix && !linux

package python

import (
	"os"
	"syscall"
)

func spawn(s spawnSpec) (*os.Process, error) {
	return os.StartProcess(s.argv[0], s.argv, &os.ProcAttr{Dir: s.dir, Env: s.env, Files: s.files, Sys: &syscall.SysProcAttr{Setpgid: true}})
}

// askStack asks the worker for its stack (SIGUSR2: see worker.importAt).
func askStack(pid int) error { return syscall.Kill(pid, syscall.SIGUSR2) }

func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}
