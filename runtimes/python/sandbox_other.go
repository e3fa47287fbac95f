//go:build !linux

package python

import (
	"os"
	"syscall"
	"time"
)

// detectLayers reports every layer unavailable: the sandbox is Linux only.
func detectLayers() Layers {
	const why = "not Linux"
	return Layers{LandlockErr: why, SeccompErr: why, NetNSErr: why, PIDNSErr: why, RlimitsErr: why, CgroupErr: why}
}

// workerCgroup is a worker's control group: none but on Linux.
type workerCgroup struct{}

func newCgroup(spawnSpec) (*workerCgroup, error) { return nil, nil }
func (*workerCgroup) add(int) error              { return nil }
func (*workerCgroup) kill()                      {}
func (*workerCgroup) destroy()                   {}

func removeHostFolders(time.Time) {}

func spawn(s spawnSpec) (*os.Process, error) {
	return os.StartProcess(s.argv[0], s.argv, &os.ProcAttr{Dir: s.dir, Env: s.env, Files: s.files, Sys: &syscall.SysProcAttr{Setpgid: true}})
}

func limit(int, spawnSpec) error { return nil }

func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}
