package python

import (
	"fmt"
	"log/slog"
	"os"
)

// Layers says which sandbox layers python workers get on this machine.
// A layer that is unavailable has its reason in the matching *Err field.
type Layers struct {
	// Disabled is true when runtimes.python.sandbox is false.
	Disabled bool
	// Landlock is the Landlock ABI version (0: unavailable).
	Landlock    int
	LandlockErr string
	// Seccomp is true when a seccomp filter can be installed.
	Seccomp    bool
	SeccompErr string
	// NetNS is true when workers can get a new network namespace.
	NetNS    bool
	NetNSErr string
	// PIDNS is true when workers can get a new PID namespace: a worker is
	// its namespace's init, so every process a tool forks dies with it.
	PIDNS    bool
	PIDNSErr string
	// Rlimits is true when resource limits can be set on workers.
	Rlimits    bool
	RlimitsErr string
	// Cgroup is the control-group version workers are put in ("v1",
	// "v2"; "" unavailable): limits on a worker's whole process tree, and
	// every process of it killed with the worker (cgroup_linux.go).
	Cgroup    string
	CgroupErr string
}

// String is a one-line summary, e.g. "landlock=v7 seccomp=on netns=on pidns=on rlimits=on cgroup=v2".
func (l Layers) String() string {
	if l.Disabled {
		return "sandbox=off"
	}
	onoff := func(b bool) string {
		if b {
			return "on"
		}
		return "off"
	}
	ll := "off"
	if l.Landlock > 0 {
		ll = fmt.Sprintf("v%d", l.Landlock)
	}
	cg := "off"
	if l.Cgroup != "" {
		cg = l.Cgroup
	}
	return fmt.Sprintf("landlock=%s seccomp=%s netns=%s pidns=%s rlimits=%s cgroup=%s", ll, onoff(l.Seccomp), onoff(l.NetNS), onoff(l.PIDNS), onoff(l.Rlimits), cg)
}

// Degraded lists one sentence per missing layer.
func (l Layers) Degraded() []string {
	if l.Disabled {
		return []string{"sandbox disabled by runtimes.python.sandbox: false; python workers run unconfined with the host's rights"}
	}
	var out []string
	if l.Landlock == 0 {
		out = append(out, "landlock unavailable: "+l.LandlockErr+"; python workers can read the whole filesystem")
	}
	if !l.Seccomp {
		out = append(out, "seccomp unavailable: "+l.SeccompErr+"; python workers can open sockets (unless in their own network namespace), raise their resource limits, make user namespaces, read the kernel keyrings and the System V shared memory of the host's user and change the mode, times and extended attributes of that user's files")
	}
	if !l.NetNS {
		out = append(out, "network namespace unavailable: "+l.NetNSErr+"; python workers share the host's network namespace")
	}
	if !l.PIDNS {
		out = append(out, "PID namespace unavailable: "+l.PIDNSErr+"; processes a python tool forks may outlive its worker")
		// Only Landlock's scopes (ABI 6) and ptrace rule (every ABI)
		// keep a worker off the processes it can name without one.
		switch {
		case l.Landlock == 0:
			out = append(out, "PID namespace and Landlock unavailable: python workers can signal (kill) the host and every process of its user, and ptrace them where Yama's ptrace_scope allows")
		case l.Landlock < 6:
			out = append(out, fmt.Sprintf("PID namespace and Landlock signal scoping (ABI 6, Linux 6.12; this kernel has v%d) unavailable: python workers can signal (kill) the host and every process of its user", l.Landlock))
		}
	}
	if !l.Rlimits {
		out = append(out, "resource limits unavailable: "+l.RlimitsErr+"; python workers have no memory or CPU limit")
	}
	if l.Cgroup == "" {
		out = append(out, "control groups unavailable: "+l.CgroupErr+"; the processes a python tool forks have no shared task, memory or CPU limit (each has its own rlimits, which do not count memory written to a memfd)")
	}
	if l.Cgroup != "" && l.Landlock == 0 {
		out = append(out, "control groups without Landlock: a python worker runs as the host's user and can write its own control group's limits or leave it (cgroupfs is reachable), so they bound only tools that do not try")
	}
	return out
}

func (l Layers) log(log *slog.Logger) {
	for _, d := range l.Degraded() {
		log.Warn(d)
	}
	log.Info("python sandbox layers", "layers", l.String())
}

// roPath is a path a worker may read (and execute from).
type roPath struct {
	path  string
	write bool // also writable (only /dev/null)
}

// spawnSpec is everything needed to start one worker.
type spawnSpec struct {
	argv  []string
	env   []string
	dir   string
	files []*os.File
	// read is what Landlock lets the worker read.
	read []roPath
	// network is true when the provider holds a Network grant.
	network bool
	layers  Layers
	// memory and cpu limits (0: none).
	memoryBytes uint64
	cpuSeconds  uint64
	// the worker tree's limits in its control group (0: none).
	tasks int
	cpus  float64
}
