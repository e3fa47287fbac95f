package python

import (
	"fmt"
	"math"
	"time"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/internal/wire"
)

// Config is the runtimes.python section of the configuration file.
//
//	runtimes:
//	  python:
//	    interpreter: /usr/bin/python3   # default: python3 from PATH
//	    pool_size: 4                    # workers per provider
//	    memory_mb: 512                  # RLIMIT_AS per worker
//	    cpu_seconds: 600                # RLIMIT_CPU per worker (its lifetime; replaced between calls at half)
//	    max_processes: 128              # tasks (processes and threads) of a worker's tree, in its cgroup
//	    cpus: 1                         # CPU of a worker's tree, in its cgroup (cores; 0: no limit)
//	    startup_timeout: 10s            # start + import + register
//	    sandbox: true                   # false runs workers unconfined (debugging only)
//	    sdk_path: ""                    # folder holding aios_sdk/ (default: the embedded copy)
//	    site: false                     # true runs site.py (.pth files) in workers: slower start
//	    spin: 100us                     # busy-poll window for a worker's answer (0: never spin)
//	    wire: msgpack                   # preferred wire format: msgpack or json (debugging)
type Config struct {
	Interpreter string `yaml:"interpreter"`
	PoolSize    int    `yaml:"pool_size"`
	MemoryMB    int    `yaml:"memory_mb"`
	CPUSeconds  int    `yaml:"cpu_seconds"`
	// MaxProcesses bounds the tasks (processes and threads) of a worker
	// and everything it forks, and CPUs their CPU time per second (in
	// cores), where the machine lets the host make control groups
	// (Layers.Cgroup); memory_mb bounds the tree's memory there too. 0: no
	// limit.
	MaxProcesses   int           `yaml:"max_processes"`
	CPUs           float64       `yaml:"cpus"`
	StartupTimeout time.Duration `yaml:"startup_timeout"`
	Sandbox        *bool         `yaml:"sandbox"`
	SDKPath        string        `yaml:"sdk_path"`
	// Site runs site.py in workers (python3 without -S), so .pth files'
	// import lines run; slower start. Without it the site-packages folders
	// are on sys.path anyway.
	Site bool `yaml:"site"`
	// Spin is how long the calling goroutine polls the worker's pipe for
	// the result before it sleeps, and how long a worker polls for the
	// next call after answering one (adaptive, see docs/python.md
	// "Performance"). It saves two cross-CPU wake-ups per call, which cost
	// more than the rest of a warm call on a virtual machine. 0 disables it.
	Spin time.Duration `yaml:"spin"`
	// Wire is the format the host prefers for the frames after a worker's
	// hello (internal/wire): msgpack (the default) or json (for debugging:
	// with debug logging on, every frame is logged). A worker that cannot
	// speak it (no msgpack module) gets the other.
	Wire string `yaml:"wire"`
}

// Defaults.
const (
	DefaultPoolSize       = 4
	DefaultMemoryMB       = 512
	DefaultCPUSeconds     = 600
	DefaultMaxProcesses   = 128
	DefaultCPUs           = 1.0
	DefaultStartupTimeout = 10 * time.Second
	DefaultSpin           = 100 * time.Microsecond
	// MaxSpin bounds runtimes.python.spin.
	MaxSpin = time.Millisecond
	// MaxMemoryMB (1 PiB) and MaxCPUSeconds (about 136 years) bound
	// memory_mb and cpu_seconds: past 2^44 MiB the limit in bytes
	// overflowed (to 1 MiB for 2^44+1), past 2^63 ns the CPU budget (to a
	// negative one, which replaced the worker after every call).
	MaxMemoryMB   = 1 << 30
	MaxCPUSeconds = 1 << 32
)

// DefaultConfig returns the defaults: python3 from PATH, 4 workers per
// provider, 512 MiB and 600 CPU seconds per worker, sandbox on, 100 µs spin.
func DefaultConfig() Config {
	on := true
	return Config{
		Interpreter:    "python3",
		PoolSize:       DefaultPoolSize,
		MemoryMB:       DefaultMemoryMB,
		CPUSeconds:     DefaultCPUSeconds,
		MaxProcesses:   DefaultMaxProcesses,
		CPUs:           DefaultCPUs,
		StartupTimeout: DefaultStartupTimeout,
		Sandbox:        &on,
		Spin:           DefaultSpin,
		Wire:           wire.Default,
	}
}

// ConfigFrom decodes the runtimes.python section of cfg over the defaults.
func ConfigFrom(cfg *config.Config) (Config, error) {
	c := DefaultConfig()
	if cfg == nil {
		return c, nil
	}
	if node, ok := cfg.Runtimes["python"]; ok {
		// Decode, not DecodeSection: an error names the file, the
		// line and runtimes.python.KEY ("config:3: KEY" before).
		if err := cfg.Decode(node, "runtimes.python", &c); err != nil {
			return c, err
		}
	}
	return c, c.check()
}

func (c *Config) check() error {
	switch {
	case c.PoolSize < 1 || c.PoolSize > 256:
		return fmt.Errorf("runtimes.python.pool_size: %d: want 1..256", c.PoolSize)
	case c.MemoryMB < 0:
		return fmt.Errorf("runtimes.python.memory_mb: %d: want >= 0 (0 means no limit)", c.MemoryMB)
	case c.MemoryMB > 0 && c.MemoryMB < 32:
		return fmt.Errorf("runtimes.python.memory_mb: %d: CPython needs at least 32 MiB of address space", c.MemoryMB)
	case c.MemoryMB > MaxMemoryMB:
		return fmt.Errorf("runtimes.python.memory_mb: %d is more than %d (1 PiB): give 0 for no limit", c.MemoryMB, MaxMemoryMB)
	case c.CPUSeconds < 0:
		return fmt.Errorf("runtimes.python.cpu_seconds: %d: want >= 0 (0 means no limit)", c.CPUSeconds)
	case c.CPUSeconds > MaxCPUSeconds:
		return fmt.Errorf("runtimes.python.cpu_seconds: %d is more than %d (about 136 years): give 0 for no limit", c.CPUSeconds, MaxCPUSeconds)
	case c.MaxProcesses < 0 || c.MaxProcesses > 0 && c.MaxProcesses < 8:
		return fmt.Errorf("runtimes.python.max_processes: %d: want 0 (no limit) or at least 8 (a worker has a few threads)", c.MaxProcesses)
	case math.IsNaN(c.CPUs) || c.CPUs < 0 || c.CPUs > 4096 || c.CPUs > 0 && c.CPUs < 0.01:
		// NaN (cpus: .nan) passed every comparison and meant no CPU
		// limit (TestCPUsNotANumberRefused).
		return fmt.Errorf("runtimes.python.cpus: %v: want 0 (no limit) or 0.01..4096 cores", c.CPUs)
	case c.StartupTimeout < 0:
		return fmt.Errorf("runtimes.python.startup_timeout: %v: want a positive duration", c.StartupTimeout)
	case c.Spin < 0 || c.Spin > MaxSpin:
		return fmt.Errorf("runtimes.python.spin: %v: want 0 (off) .. %v", c.Spin, MaxSpin)
	}
	w, err := wire.Check("runtimes.python.wire", c.Wire)
	if err != nil {
		return err
	}
	c.Wire = w
	if c.Interpreter == "" {
		c.Interpreter = "python3"
	}
	// "~/": the home folder, as in every path setting (no shell expands
	// it in a config file); "python3" is still looked up in PATH.
	c.Interpreter = config.ExpandHome(c.Interpreter)
	c.SDKPath = config.ExpandHome(c.SDKPath)
	// $VENV/bin/python3 was looked for literally, and failed at the
	// first call as an interpreter not found (TestSectionPathEnvVariableRefused).
	for _, s := range []struct{ key, p string }{{"interpreter", c.Interpreter}, {"sdk_path", c.SDKPath}} {
		if msg := config.PathProblem(s.p); msg != "" {
			return fmt.Errorf("runtimes.python.%s: %s", s.key, msg)
		}
	}
	if c.StartupTimeout == 0 {
		c.StartupTimeout = DefaultStartupTimeout
	}
	return nil
}

func (c *Config) sandboxed() bool { return c.Sandbox == nil || *c.Sandbox }
