//go:build !linux

package python

import "time"

// detectLayers reports every layer unavailable: the sandbox is Linux only.
func detectLayers() Layers {
	const why = "not Linux"
	return Layers{LandlockErr: why, SeccompErr: why, NetNSErr: why, PIDNSErr: why, RlimitsErr: why, CgroupErr: why}
}

// workerCgroup is a worker's control group: none but on Linux.
type workerCgroup struct{}

func newCgroup(spawnSpec) (*workerCgroup, error)     { return nil, nil }
func (*workerCgroup) add(int) error                  { return nil }
func (*workerCgroup) kill()                          {}
func (*workerCgroup) destroy()                       {}
func (*workerCgroup) oomKills() (int, bool)          { return 0, false }
func (*workerCgroup) cpuUsed() (time.Duration, bool) { return 0, false }

func removeHostFolders(time.Time) {}

func limit(int, spawnSpec) error { return nil }
