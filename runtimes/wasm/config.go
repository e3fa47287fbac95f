package wasm

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/wasm/precompile"
)

// Config is the `runtimes.wasm` section of the host configuration. The zero
// value of every field means "use the default" and the defaults are safe.
type Config struct {
	// Engine selects the engine for core modules: "wazero" (default) or
	// "wasmtime" in a binary built with -tags wasmtime (see
	// NewEngineLoader).
	Engine string `yaml:"engine"`
	// UntrustedComponents says where a component from an unsigned file
	// (trust Untrusted) runs when Engine is wasmtime: "wazero" (default),
	// whose lift budget bounds the host memory a result takes before it is
	// made, or "engine" (wasmtime like the others; wasmtime lifts results
	// itself, unbounded). Core modules and the wazero engine are not
	// affected.
	UntrustedComponents string `yaml:"untrusted_components"`
	// MemoryLimitPages caps each instance's linear memory, in 64 KiB pages.
	// Default 4096 (256 MiB); at most 65536.
	MemoryLimitPages uint32 `yaml:"memory_limit_pages"`
	// PoolSize bounds the instances of one provider serving calls at once.
	// Default 4.
	PoolSize int `yaml:"pool_size"`
	// MinIdle instances are kept warm when idle trimming runs. Default 1.
	MinIdle int `yaml:"min_idle"`
	// IdleTimeout closes an instance that served no call for this long
	// (beyond MinIdle). Default 60s.
	IdleTimeout time.Duration `yaml:"idle_timeout"`
	// CacheDir holds compiled code across restarts. Default
	// <data>/cache/wasm when the host has a data directory, otherwise an
	// in-memory cache.
	CacheDir string `yaml:"cache_dir"`
	// DeadlineGranularity is how often the watchdog checks running calls:
	// a guest is interrupted at most this long after its deadline.
	// Default 5ms.
	DeadlineGranularity time.Duration `yaml:"deadline_granularity"`
	// DefaultDeadline applies to a call that carries no deadline at all.
	// Default 30s.
	DefaultDeadline time.Duration `yaml:"default_deadline"`
	// LoadTimeout bounds instantiation (_initialize) and aios_register.
	// Default 10s.
	LoadTimeout time.Duration `yaml:"load_timeout"`
	// CompileTimeout bounds the compilation of a module whose measured
	// cost could make it slow: such a module is compiled by a process of
	// its own, killed after this long (package precompile). It applies to
	// the core modules of components too. Default 30s.
	CompileTimeout time.Duration `yaml:"compile_timeout"`
	// Stdout is where guest stdout/stderr go: "log" (default, the host log
	// tagged with the provider) or "discard".
	Stdout string `yaml:"stdout"`
	// StdoutBytesPerSecond caps guest output per provider; the excess is
	// dropped and counted. Default 65536.
	StdoutBytesPerSecond int `yaml:"stdout_bytes_per_second"`
	// Clock is "fake" (default: wazero's deterministic wall clock and a
	// virtual monotonic clock, virtualClock; sleeping returns at once) or
	// "real" for every provider. A provider that asks for
	// and is granted the capability Clock gets real clocks regardless.
	Clock string `yaml:"clock"`
	// Random is "fake" (default: a deterministic source) or "real"
	// (crypto/rand) for every provider; the capability Random grants it to
	// one provider.
	Random string `yaml:"random"`
	// MaxMessageBytes bounds one encoded message crossing the guest
	// boundary in either direction. Default 64 MiB.
	MaxMessageBytes int `yaml:"max_message_bytes"`
	// Providers overrides settings for one provider, keyed by provider id
	// (when the source names one) or by the file name without ".wasm".
	Providers map[string]ProviderConfig `yaml:"providers"`
}

// ProviderConfig overrides Config for one provider.
type ProviderConfig struct {
	MemoryLimitPages uint32 `yaml:"memory_limit_pages"`
	PoolSize         int    `yaml:"pool_size"`
}

// Capability kinds this runtime understands beyond abi's.
const (
	CapClock  = abi.CapClock  // real wall clock, monotonic clock and sleep
	CapRandom = abi.CapRandom // crypto/rand as the WASI random source
)

// Values of Config.UntrustedComponents.
const (
	UntrustedComponentsWazero = "wazero"
	UntrustedComponentsEngine = "engine"
)

// MaxPoolSize bounds pool_size: the pool's slots (a cache line each) are
// made at that size when a provider loads, and each busy instance holds
// up to memory_limit_pages of memory.
const MaxPoolSize = 1024

// providerKey is the key path of a provider's override, as the
// configuration writes it (a dotted id quoted: providers["org.x.y"]), so
// that an error about it is placed on its line.
func providerKey(id string) string { return config.JoinKey("runtimes.wasm.providers", id) }

// Check reports what NewLoader would refuse in c (a negative or too small
// value), without building anything.
func (c Config) Check() error {
	_, err := c.withDefaults()
	return err
}

func (c Config) withDefaults() (Config, error) {
	// 0 (or leaving the key out) means the default; a negative value is
	// a mistake, said rather than replaced.
	for _, n := range []struct {
		key string
		v   int
		d   time.Duration
	}{
		{key: "pool_size", v: c.PoolSize}, {key: "min_idle", v: c.MinIdle},
		{key: "stdout_bytes_per_second", v: c.StdoutBytesPerSecond}, {key: "max_message_bytes", v: c.MaxMessageBytes},
		{key: "idle_timeout", d: c.IdleTimeout}, {key: "deadline_granularity", d: c.DeadlineGranularity},
		{key: "default_deadline", d: c.DefaultDeadline}, {key: "load_timeout", d: c.LoadTimeout},
		{key: "compile_timeout", d: c.CompileTimeout},
	} {
		switch {
		case n.v < 0:
			return c, fmt.Errorf("runtimes.wasm.%s: %d is negative (leave it out, or 0, for the default)", n.key, n.v)
		case n.d < 0:
			return c, fmt.Errorf("runtimes.wasm.%s: %s is negative (leave it out, or 0, for the default)", n.key, n.d)
		}
	}
	if g := c.DeadlineGranularity; g > 0 && g < time.Millisecond {
		// The watchdog's timer fired back to back while a call ran
		// (TestTinyDeadlineGranularityRefused).
		return c, fmt.Errorf("runtimes.wasm.deadline_granularity: %s is below 1ms: the watchdog would check running calls back to back, taking a core from them (leave it out, or 0, for the default 5ms)", g)
	}
	if c.PoolSize > MaxPoolSize {
		return c, fmt.Errorf("runtimes.wasm.pool_size: %d is more than %d", c.PoolSize, MaxPoolSize)
	}
	for id, pc := range c.Providers {
		if pc.PoolSize < 0 {
			return c, fmt.Errorf("%s.pool_size: %d is negative (leave it out, or 0, for the default)", providerKey(id), pc.PoolSize)
		}
		if pc.PoolSize > MaxPoolSize {
			return c, fmt.Errorf("%s.pool_size: %d is more than %d", providerKey(id), pc.PoolSize, MaxPoolSize)
		}
	}
	// "~/" is the home folder, as in every path of the config (README
	// "Configuration"), not a folder named "~" in the working directory.
	c.CacheDir = config.ExpandHome(c.CacheDir)
	// Nor a folder named "$HOME" (TestSectionPathEnvVariableRefused).
	if msg := config.PathProblem(c.CacheDir); msg != "" {
		return c, fmt.Errorf("runtimes.wasm.cache_dir: %s", msg)
	}
	if c.MemoryLimitPages == 0 {
		c.MemoryLimitPages = 4096
	}
	if c.MemoryLimitPages > 65536 {
		return c, fmt.Errorf("runtimes.wasm.memory_limit_pages: %d is above 65536 (4 GiB)", c.MemoryLimitPages)
	}
	if c.PoolSize <= 0 {
		c.PoolSize = 4
	}
	if c.MinIdle <= 0 {
		c.MinIdle = 1
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 60 * time.Second
	}
	if c.DeadlineGranularity <= 0 {
		c.DeadlineGranularity = 5 * time.Millisecond
	}
	if c.DefaultDeadline <= 0 {
		c.DefaultDeadline = 30 * time.Second
	}
	if c.LoadTimeout <= 0 {
		c.LoadTimeout = 10 * time.Second
	}
	if c.CompileTimeout <= 0 {
		c.CompileTimeout = precompile.DefaultTimeout
	}
	if c.StdoutBytesPerSecond <= 0 {
		c.StdoutBytesPerSecond = 64 << 10
	}
	if c.MaxMessageBytes <= 0 {
		c.MaxMessageBytes = 64 << 20
	}
	for _, f := range []struct {
		name, v string
		ok      []string
	}{
		{"stdout", c.Stdout, []string{"", "log", "discard"}},
		{"clock", c.Clock, []string{"", "fake", "real"}},
		{"random", c.Random, []string{"", "fake", "real"}},
		{"untrusted_components", c.UntrustedComponents, []string{"", UntrustedComponentsWazero, UntrustedComponentsEngine}},
	} {
		valid := false
		for _, o := range f.ok {
			valid = valid || f.v == o
		}
		if !valid {
			return c, fmt.Errorf("runtimes.wasm.%s: %q is not one of %q", f.name, f.v, f.ok[1:])
		}
	}
	for id, pc := range c.Providers {
		if pc.MemoryLimitPages > 65536 {
			return c, fmt.Errorf("%s.memory_limit_pages: %d is above 65536", providerKey(id), pc.MemoryLimitPages)
		}
	}
	return c, nil
}

// LimitsFor returns the memory limit (pages) and pool size for the provider
// loaded from src: a providers entry keyed by src.ProviderID, else by the
// file's stem, overrides the loader-wide values. poolKey is the config key
// that set the pool size, which a call that waited for a full pool names.
// Both engines use it, for core modules and components.
func (c Config) LimitsFor(src abi.Source) (pages uint32, poolSize int, poolKey string) {
	stem := strings.TrimSuffix(filepath.Base(src.Path), filepath.Ext(src.Path))
	key := src.ProviderID
	pc, ok := c.Providers[key]
	if !ok || key == "" {
		key = stem
		pc = c.Providers[stem]
	}
	pages, poolSize, poolKey = c.MemoryLimitPages, c.PoolSize, "runtimes.wasm.pool_size"
	if pc.MemoryLimitPages > 0 {
		pages = pc.MemoryLimitPages
	}
	if pc.PoolSize > 0 {
		poolSize = pc.PoolSize
		poolKey = config.JoinKey("runtimes.wasm.providers", key) + ".pool_size"
	}
	return pages, poolSize, poolKey
}
