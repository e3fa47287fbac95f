package js

import (
	"context"
	_ "embed"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/internal/wire"
)

//go:embed prelude.js
var preludeSource string

//go:embed limits.js
var limitsSource string

// Options configure the JS/TS runtime. The zero value is safe: every field
// has a default.
type Options struct {
	// MemoryBudget is the heap growth one call of a provider may cause before
	// it is stopped with ProviderCrashed. Default 256 MiB.
	MemoryBudget int64
	// ProviderBudgets overrides MemoryBudget per provider id.
	ProviderBudgets map[string]int64
	// PoolSize bounds the goja runtimes per provider (calls beyond it wait
	// for a free runtime). Default 16.
	PoolSize int
	// MaxCallStackSize bounds JS call depth; deeper recursion is a stack
	// overflow (ProviderCrashed). Default 4000.
	MaxCallStackSize int
	// DefaultTimeout applies when neither the context nor the call has a
	// deadline. Default 30 s.
	DefaultTimeout time.Duration
	// LoadTimeout bounds running a provider's top-level code. Default 5 s.
	LoadTimeout time.Duration
	// BundleTimeout bounds bundling a provider (esbuild, in a process of
	// its own: bundler.go). Default 10 s.
	BundleTimeout time.Duration
	// MaxResultBytes bounds the strings and keys of one result (TooLarge).
	// Default 64 MiB.
	MaxResultBytes int
	// WatchdogInterval is how often the watchdog checks running calls for
	// deadlines and memory while any call runs. Default 2 ms.
	WatchdogInterval time.Duration
	// Logger receives load messages and console output outside calls.
	// (Options travel to worker processes, isolate.go, without it.)
	Logger *slog.Logger `msgpack:"-" json:"-"`
	// Isolation says where providers run: IsolationInProcess (the
	// default: goja runtimes in the host process, a few µs a call),
	// IsolationProcess (every provider in a worker process of its own
	// with a hard memory limit, ProcessMemory) or IsolationUntrusted
	// (worker processes for providers loaded at trust level Untrusted,
	// in-process for the others). See docs/js.md, "Isolation".
	Isolation string
	// ProcessMemory is the hard limit on the memory a worker process may
	// map for data (RLIMIT_DATA above what the worker uses when it
	// starts); past it the worker dies and its calls fail with
	// ProviderCrashed. Default: MemoryBudget + 768 MiB, at least 1 GiB.
	ProcessMemory int64
	// Spin is how long a reader of a worker pipe (the host waiting for an
	// answer, the worker waiting for the next call) polls it before it
	// sleeps (internal/pipe). Default 100 µs; negative: never.
	Spin time.Duration
	// WorkerIdle stops a worker process no call has used for this long
	// (the next call starts a new one). Default 5 min; negative: never.
	WorkerIdle time.Duration
	// Unconfined starts worker processes without Landlock (by default a
	// worker can read only its executable, the shared libraries, /proc and
	// /sys, write nothing, and make no TCP connection: isolate.go). For an
	// executable whose libraries live elsewhere (a Nix store, /opt).
	Unconfined bool
	// WorkerCommand runs a worker process: a program linked with this
	// package, which becomes a worker when started with AIOS_JS_WORKER=1
	// in its environment. Default: the running executable.
	WorkerCommand string
	// Wire is the format the host prefers for a worker process's frames
	// after their hello exchange (internal/wire): "msgpack" (the default,
	// also for "") or "json" (for debugging: with debug logging on, every
	// frame is logged). A worker that does not offer it gets the other.
	Wire string
}

// Isolation modes (Options.Isolation, runtimes.js.isolation).
const (
	IsolationInProcess = "in-process"
	IsolationProcess   = "process"
	IsolationUntrusted = "untrusted"
)

// Config is the runtimes.js section of the host configuration; the host
// decodes it and passes Options built with ToOptions.
type Config struct {
	MemoryBudgetMiB  int            `yaml:"memory_budget_mib"`
	ProviderBudgets  map[string]int `yaml:"provider_budgets_mib"`
	PoolSize         int            `yaml:"pool_size"`
	MaxCallStackSize int            `yaml:"max_call_stack"`
	DefaultTimeout   time.Duration  `yaml:"default_timeout"`
	LoadTimeout      time.Duration  `yaml:"load_timeout"`
	BundleTimeout    time.Duration  `yaml:"bundle_timeout"`
	// Isolation is in-process, process or untrusted (Options.Isolation).
	// Empty means untrusted: the host runs unsigned code in worker
	// processes unless told otherwise.
	Isolation        string `yaml:"isolation"`
	ProcessMemoryMiB int    `yaml:"process_memory_mib"`
	// Spin is Options.Spin; 0 turns spinning off, absent keeps 100µs.
	Spin *time.Duration `yaml:"spin"`
	// WorkerIdle is Options.WorkerIdle; 0 keeps idle workers, absent
	// stops them after 5 min.
	WorkerIdle *time.Duration `yaml:"worker_idle"`
	// Confine false is Options.Unconfined (absent: confined).
	Confine *bool `yaml:"confine"`
	// Wire is Options.Wire: msgpack (default) or json.
	Wire string `yaml:"wire"`
}

// MaxPoolSize bounds pool_size: each pooled runtime is a goroutine and a
// goja VM of its own, and the pool's channels are made at that size.
const MaxPoolSize = 1024

// Validate checks the values the YAML decoder cannot. 0 (or leaving a key
// out) means the default; a negative value is a mistake, said rather than
// replaced.
func (c Config) Validate() error {
	switch c.Isolation {
	case "", IsolationInProcess, IsolationProcess, IsolationUntrusted:
	default:
		return fmt.Errorf("runtimes.js.isolation: %q is not one of in-process, process, untrusted", c.Isolation)
	}
	if c.Spin != nil && (*c.Spin < 0 || *c.Spin > time.Millisecond) {
		return fmt.Errorf("runtimes.js.spin: %v is not between 0 and 1ms", *c.Spin)
	}
	if c.WorkerIdle != nil && *c.WorkerIdle < 0 {
		return fmt.Errorf("runtimes.js.worker_idle: %v is negative", *c.WorkerIdle)
	}
	if c.BundleTimeout < 0 {
		return fmt.Errorf("runtimes.js.bundle_timeout: %v is negative", c.BundleTimeout)
	}
	if c.ProcessMemoryMiB < 0 {
		return fmt.Errorf("runtimes.js.process_memory_mib: %d is negative", c.ProcessMemoryMiB)
	}
	// Past 2^43 MiB a size in bytes overflowed: to 0 or a negative
	// number, so the key silently gave the default (found by p192).
	for _, m := range []struct {
		key string
		v   int
	}{{"runtimes.js.process_memory_mib", c.ProcessMemoryMiB}, {"runtimes.js.memory_budget_mib", c.MemoryBudgetMiB}} {
		if m.v > MaxMiB {
			return fmt.Errorf("%s: %d is more than %d (1 PiB)", m.key, m.v, MaxMiB)
		}
	}
	if c.ProcessMemoryMiB > 0 && c.ProcessMemoryMiB < MinProcessMemoryMiB {
		return fmt.Errorf("runtimes.js.process_memory_mib: %d is below %d: a worker process needs that much to start (leave it out, or 0, for the default)", c.ProcessMemoryMiB, MinProcessMemoryMiB)
	}
	if c.MemoryBudgetMiB < 0 {
		return fmt.Errorf("runtimes.js.memory_budget_mib: %d is negative", c.MemoryBudgetMiB)
	}
	if c.PoolSize < 0 || c.PoolSize > MaxPoolSize {
		return fmt.Errorf("runtimes.js.pool_size: %d is not between 1 and %d (leave it out, or 0, for the default 16)", c.PoolSize, MaxPoolSize)
	}
	if c.MaxCallStackSize < 0 {
		return fmt.Errorf("runtimes.js.max_call_stack: %d is negative (leave it out, or 0, for the default)", c.MaxCallStackSize)
	}
	if c.DefaultTimeout < 0 {
		return fmt.Errorf("runtimes.js.default_timeout: %v is negative (leave it out, or 0, for the default)", c.DefaultTimeout)
	}
	if c.LoadTimeout < 0 {
		return fmt.Errorf("runtimes.js.load_timeout: %v is negative (leave it out, or 0, for the default)", c.LoadTimeout)
	}
	for _, id := range slices.Sorted(maps.Keys(c.ProviderBudgets)) {
		if v := c.ProviderBudgets[id]; v < 0 {
			return fmt.Errorf("%s: %d is negative (leave the provider out for runtimes.js.memory_budget_mib)", config.JoinKey("runtimes.js.provider_budgets_mib", id), v)
		}
		if v := c.ProviderBudgets[id]; v > MaxMiB {
			return fmt.Errorf("%s: %d is more than %d (1 PiB)", config.JoinKey("runtimes.js.provider_budgets_mib", id), v, MaxMiB)
		}
	}
	if _, err := wire.Check("runtimes.js.wire", c.Wire); err != nil {
		return err
	}
	return nil
}

// MaxMiB (1 PiB) bounds the sizes in MiB of the section: past 2^43 MiB
// their bytes overflow an int64.
const MaxMiB = 1 << 30

// MinProcessMemoryMiB is the least runtimes.js.process_memory_mib taken: a
// worker (Go runtime, goja, the bundle) below about 32 MiB dies in the Go
// runtime before it registers ("fatal error: runtime: cannot allocate
// memory"), which the host could only report as a stack dump per provider.
const MinProcessMemoryMiB = 64

// ToOptions converts the config section into Options.
func (c Config) ToOptions(logger *slog.Logger) Options {
	o := Options{
		MemoryBudget:     int64(c.MemoryBudgetMiB) << 20,
		PoolSize:         c.PoolSize,
		MaxCallStackSize: c.MaxCallStackSize,
		DefaultTimeout:   c.DefaultTimeout,
		LoadTimeout:      c.LoadTimeout,
		BundleTimeout:    c.BundleTimeout,
		Logger:           logger,
		Isolation:        c.Isolation,
		ProcessMemory:    int64(c.ProcessMemoryMiB) << 20,
		Wire:             c.Wire,
	}
	if o.Isolation == "" {
		o.Isolation = IsolationUntrusted
	}
	if c.Confine != nil && !*c.Confine {
		o.Unconfined = true
	}
	if c.WorkerIdle != nil {
		o.WorkerIdle = *c.WorkerIdle
		if o.WorkerIdle == 0 {
			o.WorkerIdle = -1
		}
	}
	if c.Spin != nil {
		o.Spin = *c.Spin
		if o.Spin == 0 {
			o.Spin = -1
		}
	}
	if len(c.ProviderBudgets) > 0 {
		o.ProviderBudgets = make(map[string]int64, len(c.ProviderBudgets))
		for k, v := range c.ProviderBudgets {
			o.ProviderBudgets[k] = int64(v) << 20
		}
	}
	return o
}

func (o Options) withDefaults() Options {
	if o.MemoryBudget <= 0 {
		o.MemoryBudget = 256 << 20
	}
	if o.PoolSize <= 0 {
		o.PoolSize = 16
	}
	if o.MaxCallStackSize <= 0 {
		o.MaxCallStackSize = 4000
	}
	if o.DefaultTimeout <= 0 {
		o.DefaultTimeout = 30 * time.Second
	}
	if o.LoadTimeout <= 0 {
		o.LoadTimeout = 5 * time.Second
	}
	if o.BundleTimeout <= 0 {
		o.BundleTimeout = 10 * time.Second
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = 64 << 20
	}
	if o.WatchdogInterval <= 0 {
		o.WatchdogInterval = 2 * time.Millisecond
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Isolation == "" {
		o.Isolation = IsolationInProcess
	}
	if o.Spin == 0 {
		o.Spin = 100 * time.Microsecond
	}
	if o.WorkerIdle == 0 {
		o.WorkerIdle = 5 * time.Minute
	}
	if o.Wire != wire.JSON {
		o.Wire = wire.Default
	}
	if o.ProcessMemory <= 0 {
		mb := o.MemoryBudget
		for _, b := range o.ProviderBudgets {
			mb = max(mb, b)
		}
		o.ProcessMemory = max(mb+768<<20, 1<<30)
	}
	return o
}

// Runtime holds what every JS/TS provider of one host shares: options, the
// compiled SDK prelude and the watchdog. Create one with New, get its
// loaders with Loaders, and Close it when the host shuts down.
type Runtime struct {
	opts    Options
	prelude *goja.Program
	limits  *goja.Program

	guardOnce sync.Once
	g         *guard
	warnOnce  sync.Once // warnUnconfined
	mu        sync.Mutex
	closed    atomic.Bool // no loads or calls after Close: the watchdog is gone

	// The bundler process (bundler.go), one request at a time.
	bmu             sync.Mutex
	bproc           *bundlerProc
	bidle           *time.Timer
	testBundlerIdle time.Duration
}

// warnUnconfined logs once that worker processes could not be confined.
func (r *Runtime) warnUnconfined(log *slog.Logger, why string) {
	r.warnOnce.Do(func() {
		log.Warn("JS worker processes run without Landlock confinement", "why", why)
	})
}

// New makes a Runtime. The watchdog goroutine starts with the first load.
func New(opts Options) *Runtime {
	return &Runtime{
		opts:    opts.withDefaults(),
		prelude: goja.MustCompile("aios-sdk-prelude.js", preludeSource, true),
		limits:  goja.MustCompile("aios-limits.js", limitsSource, true),
	}
}

func (r *Runtime) guard() *guard {
	r.guardOnce.Do(func() { r.g = newGuard(r.opts.WatchdogInterval) })
	return r.g
}

// Close stops the watchdog once the calls in flight have ended (until then
// it still interrupts them at their deadline or memory budget) and ends
// the bundler; the providers it loaded refuse further calls
// (Unavailable). Close providers first so calls in flight finish.
func (r *Runtime) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed.Swap(true) {
		return nil
	}
	if r.g != nil {
		r.g.close()
	}
	r.closeBundler()
	return nil
}

// Loaders returns the .js and .ts loaders (runtimes "js" and "ts").
func (r *Runtime) Loaders() []abi.Loader {
	return []abi.Loader{&Loader{rt: r, runtime: abi.RuntimeJS}, &Loader{rt: r, runtime: abi.RuntimeTS}}
}

// Loader loads .js files (runtime "js") or .ts files (runtime "ts").
type Loader struct {
	rt      *Runtime
	runtime string
}

// Runtime implements abi.Loader.
func (l *Loader) Runtime() string { return l.runtime }

// Close closes the runtime l belongs to (Runtime.Close; its .js and .ts
// loaders share it), for an owner that kept only the loaders (a loader
// table): it ends the bundler process, which would otherwise stay until
// it has been idle for 30 s. Close the providers first.
func (l *Loader) Close() error { return l.rt.Close() }

// Extensions implements abi.Loader.
func (l *Loader) Extensions() []string {
	if l.runtime == abi.RuntimeTS {
		return []string{".ts", ".mts"}
	}
	return []string{".js", ".mjs"}
}

// Load implements abi.Loader: bundle, compile, run the top-level code once
// to collect the registration, and keep that runtime as the pool's first.
func (l *Loader) Load(ctx context.Context, src abi.Source) (abi.Provider, error) {
	return l.rt.load(ctx, src, l.runtime)
}

func (r *Runtime) load(ctx context.Context, src abi.Source, runtime string) (abi.Provider, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load %s: %w", src.Path, err)
	}
	if r.closed.Load() {
		return nil, fmt.Errorf("load %s: the JS runtime is closed", src.Path)
	}
	isolated := r.isolated(src)
	// A file at the top of a plugin folder (no Unit) is given no file but
	// itself, as in the Python runtime: the plugin folder holds other
	// providers' files.
	alone := src.Unit == ""
	if st, err := os.Stat(src.Path); err == nil && st.IsDir() {
		alone = false
	}
	b, err := r.bundleFor(ctx, src.Path, src.Pinned, !isolated, alone)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", src.Path, err)
	}
	if isolated {
		return r.loadProcess(b, src, runtime)
	}
	return r.loadBundle(b, src, runtime)
}

// loadBundle compiles a bundle and runs it in a first runtime of a new
// in-process provider to collect its registration.
func (r *Runtime) loadBundle(b *bundled, src abi.Source, runtime string) (*Provider, error) {
	prg, err := goja.Compile(b.Name, b.Code, false)
	if err != nil {
		return nil, fmt.Errorf("load %s: goja cannot compile the bundle: %w", src.Path, err)
	}
	logger := src.Logger
	if logger == nil {
		logger = r.opts.Logger
	}
	p := &Provider{
		rt:      r,
		g:       r.guard(),
		program: prg,
		path:    src.Path,
		logger:  logger,
		logs:    newLogGate(logger, logLinesPerSecond),
		budget:  uint64(r.opts.MemoryBudget), // until the id is known
		free:    make(chan *worker, r.opts.PoolSize),
		tokens:  make(chan struct{}, r.opts.PoolSize),
		extras:  make(chan struct{}, max(r.opts.PoolSize, 8)),
		done:    make(chan struct{}),
	}
	p.tokens <- struct{}{}
	w, err := p.newWorker()
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", src.Path, err)
	}
	reg, err := p.registerGuarded(w, src, runtime)
	if err != nil {
		p.drop(w)
		return nil, fmt.Errorf("load %s: %w", src.Path, err)
	}
	p.reg = reg
	p.free <- w
	return p, nil
}
