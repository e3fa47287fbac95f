// Package component runs WebAssembly components as aios-host providers: it
// links a component's core modules per its instance section, runs them on
// wazero, lifts and lowers values with the Canonical ABI (package
// component/cabi), offers the aios:sdk host interfaces and a deny-by-default
// WASI 0.2 subset, and turns every exported function into a tool.
//
// component imports abi, wit and its own subpackages. A runtime never imports
// host, registry or cmd.
package component

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component/binary"
	"github.com/aios-host/aios-host/component/cabi"
	"github.com/aios-host/aios-host/internal/busy"
	"github.com/aios-host/aios-host/internal/sealed"
	"github.com/aios-host/aios-host/runtimes/wasm"
	"github.com/aios-host/aios-host/runtimes/wasm/instrument"
	"github.com/aios-host/aios-host/runtimes/wasm/precompile"
	"github.com/aios-host/aios-host/wit"
)

// IsComponent reports whether b starts with a component header (as opposed
// to a core module); the .wasm loader uses it to delegate.
func IsComponent(b []byte) bool { return binary.IsComponent(b) }

// Options configure the component runtime. The zero value is usable.
type Options struct {
	// Logger receives load-time messages and guest logs.
	Logger *slog.Logger
	// PoolSize bounds the instances of one provider serving calls at once,
	// and the idle ones kept for reuse (default 4, as runtimes.wasm.pool_size
	// for core modules). A call that finds all busy waits for one until its
	// deadline; a tool's nested call back into its own provider does not
	// wait (it runs on an instance outside the bound).
	PoolSize int
	// MemoryLimitPages caps each memory (64 KiB pages; default 4096 = 256 MiB).
	MemoryLimitPages uint32
	// PoolKey is the config key that set PoolSize, which a call that
	// waited for a full pool until its deadline names (default
	// runtimes.wasm.pool_size).
	PoolKey string
	// ProviderLimits, if set, gives the memory limit, pool size and pool
	// key of the component loaded from src — runtimes.wasm.providers.<id
	// or stem> over the loader-wide values, as for core modules
	// (wasm.Config.LimitsFor) — in place of MemoryLimitPages, PoolSize and
	// PoolKey. Without it those keys did nothing for a component.
	ProviderLimits func(src abi.Source) (pages uint32, poolSize int, poolKey string)
	// CacheDir, if set, holds wazero's compilation cache.
	CacheDir string
	// CompileTimeout bounds the compilation of a core module whose
	// measured cost could make it slow, done first by a process of its
	// own (package runtimes/wasm/precompile); default 30s.
	CompileTimeout time.Duration
	// LoadTimeout bounds the start functions of the instance a load makes
	// (runtimes.wasm.load_timeout; default 10s, as for core modules and
	// the wasmtime engine): past it the guest is interrupted and the load
	// fails. Instances made for calls run theirs under the call's deadline.
	LoadTimeout time.Duration
	// Instrument rewrites every core module at load time so that the
	// watchdog can stop a running guest cheaply; nil means
	// instrument.Module (package runtimes/wasm/instrument), whose protocol
	// a replacement must follow: an exported mutable i32 global
	// instrument.TickExport, decremented at loop headers, and a call to
	// the import aios.tick () -> i32 when it reaches 0. To stop a guest the
	// watchdog zeroes the global and aios.tick traps. The runtime then runs
	// without wazero's own termination checks (WithCloseOnContextDone),
	// which cost a goroutine per guest call (the export, every
	// cabi_realloc, the post-return) and slow checks in the code. A module
	// the rewrite refuses makes the provider fall back to those checks.
	Instrument func(core []byte) ([]byte, error)
	// NoInstrument switches the instrumentation off: wazero's checks stop
	// overdue guests (slower calls; for comparison and as a way out).
	NoInstrument bool
	// RealClock and RealRandom give every provider the real WASI clocks
	// and crypto/rand (runtimes.wasm.clock / random: real). Otherwise a
	// provider gets them only when it asks for and is granted the
	// capability Clock or Random, as core modules do; the others read fake
	// clocks that advance 1 ms per reading from a fixed epoch and a
	// deterministic random source (wasi.go).
	RealClock, RealRandom bool
}

// Loader loads .wasm components.
type Loader struct{ opts Options }

// NewLoader returns the component loader.
func NewLoader(opts Options) *Loader { return &Loader{opts: opts} }

// Runtime implements abi.Loader.
func (l *Loader) Runtime() string { return abi.RuntimeComponent }

// Extensions implements abi.Loader.
func (l *Loader) Extensions() []string { return []string{".wasm"} }

// Load implements abi.Loader.
func (l *Loader) Load(ctx context.Context, src abi.Source) (abi.Provider, error) {
	b, err := src.ReadFile()
	if err != nil {
		return nil, fmt.Errorf("component %s: %w", src.Path, err)
	}
	if err := src.CheckPinned(b); err != nil {
		return nil, fmt.Errorf("component %s: %w", src.Path, err)
	}
	// The host's logger for the file is tagged with it already; the
	// loader's own is not.
	opts := l.opts
	if src.Logger != nil {
		opts.Logger = src.Logger
	} else if opts.Logger != nil {
		opts.Logger = opts.Logger.With("file", src.Path)
	}
	if opts.ProviderLimits != nil {
		opts.MemoryLimitPages, opts.PoolSize, opts.PoolKey = opts.ProviderLimits(src)
	}
	p, err := New(ctx, b, src.Path, src.ProviderID, opts)
	if err != nil {
		return nil, err
	}
	// Real clocks and randomness: by config, or asked for and granted
	// (the grants the host will give it, providers.<id> included).
	asks, _ := abi.ParseGrants(p.reg.Provider.Capabilities)
	c, r := src.RealClockRandom(p.reg.Provider.ID, asks)
	p.realClock, p.realRandom = p.realClock || c, p.realRandom || r
	return p, nil
}

type tool struct {
	nResults int // core results of the lifted export (computed at load)
	def      abi.ToolDef
	exp      exportPlan
	fn       *cabi.Func
	witFn    *wit.Func
	jsonTool bool // f(params-json: string) -> result<string, string>
	idx      int
}

// Provider is a loaded component.
type Provider struct {
	lines    *LineGate // its guests' log lines (LinesPerSecond)
	path     string
	bound    *busy.Bound // instances serving calls at once (Options.PoolSize)
	poolKey  string      // the config key that set the bound (Options.PoolKey)
	rt       wazero.Runtime
	plan     *plan
	compiled []wazero.CompiledModule // per core instance (nil for inline bags)
	tools    map[string]*tool
	order    []*tool
	lowers   []*cabi.Func // nil for built-ins
	impls    []hostFunc
	lowNames []string     // "interface#function" of each lowered function, for messages
	lowSigs  []builtinSig // core signature of each lowered function
	reg      abi.ToolRegister
	meta     *providerMeta
	logger   *slog.Logger
	// realClock, realRandom: the WASI clocks and random source are the
	// host's (set by Load before the provider is used; fake otherwise).
	realClock, realRandom bool
	pool                  chan *instance
	watch                 *watchdog
	// retireAt is the size in bytes of a linear memory past which an
	// instance is closed after its call instead of pooled (put): three
	// quarters of MemoryLimitPages, as for core modules.
	retireAt uint64
	// memBytes is the most one linear memory may grow to
	// (MemoryLimitPages in bytes): spaces.read refuses a larger object.
	memBytes int64
	// world is the WIT rebuilt from the binary (witgen.go), built once.
	worldOnce sync.Once
	world     *wit.Resolved
	// instrumented: every core module carries the tick global and import
	// (Options.Instrument); otherwise wazero's termination checks are on.
	instrumented bool
	// closed is set by Close; calls counts the calls in flight. The
	// watchdog and the runtime are shut (shut) when both say so: a call
	// in flight at Close is still stopped at its deadline, and the runtime
	// is not closed under it.
	closed   atomic.Bool
	calls    atomic.Int64
	shutOnce sync.Once
}

// New loads a component from its bytes. name is used in errors and for the
// default provider id.
func New(ctx context.Context, b []byte, name, providerID string, opts Options) (_ *Provider, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("component %s: internal error while loading: %v", name, r)
		}
	}()
	c, err := binary.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("component %s: %w", name, err)
	}
	pl, err := link(c)
	if err == nil {
		err = notWITPackage(b, pl)
	}
	if err != nil {
		return nil, fmt.Errorf("component %s: %w", name, err)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.PoolSize <= 0 {
		opts.PoolSize = 4
	}
	if opts.LoadTimeout <= 0 {
		opts.LoadTimeout = 10 * time.Second
	}
	if opts.MemoryLimitPages == 0 {
		opts.MemoryLimitPages = 4096
	}
	if opts.PoolKey == "" {
		opts.PoolKey = "runtimes.wasm.pool_size"
	}
	p := &Provider{path: name, plan: pl, tools: map[string]*tool{}, logger: opts.Logger, lines: NewLineGate(), pool: make(chan *instance, opts.PoolSize), bound: busy.New(opts.PoolSize), poolKey: opts.PoolKey,
		realClock: opts.RealClock, realRandom: opts.RealRandom, retireAt: uint64(opts.MemoryLimitPages) * 65536 / 4 * 3,
		memBytes: int64(opts.MemoryLimitPages) * 65536}
	if p.meta, err = readMeta(pl.modules); err != nil {
		return nil, fmt.Errorf("component %s: %w", name, err)
	}
	comp := cabi.NewCompiler()
	hostComp := cabi.NewCompiler()
	hostComp.AllowHandles = true
	for _, lp := range pl.lowers {
		if lp.builtin != "" {
			sig := builtinSigs[lp.builtin]
			p.lowers = append(p.lowers, nil)
			p.impls = append(p.impls, nil)
			p.lowNames = append(p.lowNames, "")
			p.lowSigs = append(p.lowSigs, sig)
			continue
		}
		if lp.opts.enc != binary.UTF8 && lp.opts.memory == nil {
			return nil, fmt.Errorf("component %s: %s: string encoding without memory", name, lp.where)
		}
		if n := wit.FuncTreeSize(lp.fn.wf, wit.MaxFuncTreeSize); n > wit.MaxFuncTreeSize {
			return nil, fmt.Errorf("component %s: %s: function %s: its types, written out, have more than %d parts (they nest the same types in themselves over and over)", name, lp.where, lp.fn.wf.Name, wit.MaxFuncTreeSize)
		}
		if lp.fn.lift != nil {
			// A function lifted by one (nested) component instance and
			// lowered into another: the host adapts between them.
			f, err := cabi.NewFunc(comp, lp.fn.wf)
			if err != nil {
				return nil, fmt.Errorf("component %s: %s: function %s between component instances: %w", name, lp.where, lp.fn.wf.Name, err)
			}
			if err := checkOptions(f, lp.fn.opts, false); err != nil {
				return nil, fmt.Errorf("component %s: canon lift of function %s (lowered by %s): %w", name, lp.fn.wf.Name, lp.where, err)
			}
			if err := checkOptions(f, lp.opts, true); err != nil {
				return nil, fmt.Errorf("component %s: %s: function %s: %w", name, lp.where, lp.fn.wf.Name, err)
			}
			ps, rs := f.CoreSignature(true)
			p.lowers = append(p.lowers, f)
			p.impls = append(p.impls, adapterFunc(lp.fn, f))
			p.lowNames = append(p.lowNames, importName(lp.fn.iface, lp.fn.fun))
			p.lowSigs = append(p.lowSigs, builtinSig{ps, rs})
			continue
		}
		f, err := cabi.NewFunc(hostComp, lp.fn.wf)
		if err != nil {
			return nil, fmt.Errorf("component %s: import %s %s: %w", name, lp.fn.iface, lp.fn.fun, err)
		}
		if err := checkOptions(f, lp.opts, true); err != nil {
			return nil, fmt.Errorf("component %s: %s: import %s %s: %w", name, lp.where, orTop(lp.fn.iface), lp.fn.fun, err)
		}
		impl, ok := hostImpl(lp.fn.iface, lp.fn.fun, lp.fn.wf)
		if !ok && prerelease(lp.fn.iface) {
			return nil, fmt.Errorf("component %s: imports %s function %q, of a pre-release version, which aios-host does not provide: it implements released versions only (WASI 0.2.x, aios:sdk 0.1.x), whose functions a release candidate's may differ from; rebuild the component with a current toolchain (wit-bindgen, cargo component, jco)", name, orTop(lp.fn.iface), lp.fn.fun)
		}
		if !ok {
			return nil, fmt.Errorf("component %s: imports %s function %q, which aios-host does not provide (supported: aios:sdk@0.1.0 spaces/tools/log and the WASI 0.2 subset in docs/components.md)", name, orTop(lp.fn.iface), lp.fn.fun)
		}
		ps, rs := f.CoreSignature(true)
		p.lowers = append(p.lowers, f)
		p.impls = append(p.impls, impl)
		p.lowNames = append(p.lowNames, importName(lp.fn.iface, lp.fn.fun))
		p.lowSigs = append(p.lowSigs, builtinSig{ps, rs})
	}
	if err := p.buildTools(comp, providerID); err != nil {
		return nil, fmt.Errorf("component %s: %w", name, err)
	}
	mods := make([][]byte, len(pl.coreInsts))
	for k, ci := range pl.coreInsts {
		if ci.module < 0 {
			continue
		}
		mod, err := rewriteImports(pl.modules[ci.module], func(module, field string) (string, string, error) {
			return p.resolveImport(k, module, field)
		})
		if err != nil {
			return nil, fmt.Errorf("component %s: core instance %d (%s): %w", name, k, ci.where, err)
		}
		mods[k] = mod
	}
	if !opts.NoInstrument {
		rewrite := opts.Instrument
		if rewrite == nil {
			rewrite = instrument.Module
		}
		inst := make([][]byte, len(mods))
		var ierr error
		for k, m := range mods {
			if m == nil {
				continue
			}
			if inst[k], ierr = rewrite(m); ierr != nil {
				ierr = fmt.Errorf("core instance %d: %w", k, ierr)
				break
			}
		}
		if errors.Is(ierr, instrument.ErrTableLimit) || errors.Is(ierr, instrument.ErrReservedExport) {
			return nil, fmt.Errorf("component %s: %w", name, ierr)
		}
		if ierr == nil {
			mods, p.instrumented = inst, true
		} else {
			// Run as written, with wazero's checks: tables bounded all the same.
			for k, m := range mods {
				if m == nil {
					continue
				}
				capped, err := instrument.CapTables(m)
				if errors.Is(err, instrument.ErrTableLimit) {
					return nil, fmt.Errorf("component %s: core instance %d: %w", name, k, err)
				}
				if err == nil {
					mods[k] = capped
				}
			}
			opts.Logger.Info("component: a core module cannot be instrumented; interrupting it with wazero's checks (slower calls)", "reason", ierr)
		}
	}
	// Extended constant expressions and tail calls are used by
	// componentize-js's runtimes; both are finished proposals.
	features := api.CoreFeaturesV2 | experimental.CoreFeaturesExtendedConst | experimental.CoreFeaturesTailCall
	cfg := wazero.NewRuntimeConfig().WithCloseOnContextDone(!p.instrumented).WithMemoryLimitPages(opts.MemoryLimitPages).WithCoreFeatures(features)
	// A damaged entry of the compile cache is removed (and compiled
	// again), not read by the compiler process or run; one that cannot
	// be removed keeps this load off the cache.
	cacheDir := opts.CacheDir
	if err := wasm.CheckCache(cacheDir, opts.Logger); err != nil {
		opts.Logger.Warn("component: the compile cache cannot be used; compiled without it", "cache", cacheDir, "reason", err)
		cacheDir = ""
	}
	for k, mod := range mods {
		if mod == nil {
			continue
		}
		// A memory starting above the limit is the host's limit, named
		// with the keys that raise it (wazero: "section memory: min 22
		// pages (1 Mi) over limit of 2 pages", no key).
		if err := wasm.CheckMemoryMin(fmt.Sprintf("component %s: core module of instance %d", name, k), mod, opts.MemoryLimitPages, abi.Source{Path: name, ProviderID: providerID}); err != nil {
			return nil, err
		}
		err := precompile.Check(ctx, fmt.Sprintf("component %s: core module of instance %d", name, k), mod, precompile.Options{
			CacheDir: cacheDir, CloseOnContextDone: !p.instrumented, Features: features, Timeout: opts.CompileTimeout,
			Source: pl.modules[pl.coreInsts[k].module],
		})
		if ce := (*precompile.CompileError)(nil); errors.As(err, &ce) {
			err = fmt.Errorf("component %s: core module of instance %d: %s", name, k, ce.Msg)
		}
		if err != nil {
			return nil, err
		}
	}
	if cacheDir != "" {
		var cache wazero.CompilationCache
		endCompile := func() {}
		if err = wasm.CheckCache(cacheDir, opts.Logger); err == nil { // and new ones sealed below
			endCompile = sealed.BeginWazero(cacheDir)
			cache, err = wazero.NewCompilationCacheWithDir(cacheDir)
		}
		if err == nil {
			err = p.compileAll(ctx, name, cfg.WithCompilationCache(cache), mods)
			// Seal what the modules before a failing one wrote too (wazero
			// writes an entry whole, renamed into place): left unsealed, the
			// next load took them for damage and said so.
			sealed.SealWazero(cacheDir)
			if err == nil {
				endCompile()
				// Bounded while the host runs, not only at its start.
				wasm.NoteCompiled(cacheDir, opts.Logger)
			}
		}
		endCompile()
		if err != nil {
			// The cache is an optimisation: when compiling through it
			// fails (a corrupt entry, a full disk), compile without it.
			if err2 := p.compileAll(ctx, name, cfg, mods); err2 != nil {
				return nil, err2
			}
			opts.Logger.Warn("component: the compile cache cannot be used; compiled without it", "cache", cacheDir, "reason", err)
		}
	} else if err = p.compileAll(ctx, name, cfg, mods); err != nil {
		return nil, err
	}
	// Instantiate once now, so a broken component fails at load; its
	// start functions run until the load timeout at most (a start function
	// that never ends held the load, and the loading host, forever).
	ictx, cancel := context.WithTimeout(ctx, opts.LoadTimeout)
	inst, err := p.newInstance(ictx)
	timedOut := ictx.Err() != nil && ctx.Err() == nil
	cancel()
	if err != nil {
		p.rt.Close(ctx)
		if timedOut {
			return nil, fmt.Errorf("component %s: instantiate: the start functions did not finish within runtimes.wasm.load_timeout (%v); the guest was interrupted", name, opts.LoadTimeout)
		}
		return nil, fmt.Errorf("component %s: instantiate: %w", name, err)
	}
	// As the wasmtime engine, and as core modules, JS and Python refuse a
	// provider that registers no tools: it loaded as a provider of none
	// without a word (TestNoExportedFunctionsRefused). Checked last, so a
	// component that cannot compile or start says that first.
	if len(p.order) == 0 {
		p.rt.Close(ctx)
		return nil, fmt.Errorf("component %s: exports no functions, so it offers no tools", name)
	}
	p.put(inst)
	p.watch = newWatchdog()
	return p, nil
}

// compileAll compiles the core modules mods on a new runtime with cfg,
// which becomes p's; on failure the runtime is closed.
func (p *Provider) compileAll(ctx context.Context, name string, cfg wazero.RuntimeConfig, mods [][]byte) error {
	p.rt = wazero.NewRuntimeWithConfig(ctx, cfg)
	p.compiled = make([]wazero.CompiledModule, len(mods))
	for k, mod := range mods {
		if mod == nil {
			continue
		}
		cm, err := p.rt.CompileModule(ctx, mod)
		if err != nil {
			p.rt.Close(ctx)
			return fmt.Errorf("component %s: core module of instance %d: %w", name, k, err)
		}
		if len(cm.ExportedMemories()) > 1 {
			p.rt.Close(ctx)
			return fmt.Errorf("component %s: core instance %d exports %d memories: multiple memories are not supported", name, k, len(cm.ExportedMemories()))
		}
		p.compiled[k] = cm
	}
	return nil
}

func orTop(iface string) string {
	if iface == "" {
		return "top-level"
	}
	return "interface " + iface
}

// importKey drops the version of an interface name: "wasi:io/streams@0.2.3" → "wasi:io/streams".
// Only versions the host's interfaces are compatible with are dropped: any
// released 0.2.x of WASI and 0.1.x of aios:sdk; another
// (wasi:io/streams@0.3.0, or a release candidate,
// wasi:io/streams@0.2.0-rc-2023-11-10, whose functions may differ) gives ok
// false, an import the host does not provide.
func importKey(iface, fn string) (key string, ok bool) {
	name, ver, versioned := strings.Cut(iface, "@")
	if versioned {
		want := "0.2."
		if strings.HasPrefix(name, "aios:sdk/") {
			want = "0.1."
		}
		patch, found := strings.CutPrefix(ver, want)
		patch, _, _ = strings.Cut(patch, "+") // build metadata: the same version
		if !found || patch == "" || strings.Trim(patch, "0123456789") != "" {
			return "", false
		}
	}
	return name + "#" + fn, true
}

// prerelease says whether interface name iface has a pre-release version
// (wasi:io/streams@0.2.0-rc-2023-11-10).
func prerelease(iface string) bool {
	_, ver, _ := strings.Cut(iface, "@")
	ver, _, _ = strings.Cut(ver, "+")
	return strings.Contains(ver, "-")
}

// resolveImport maps an import (module, field) of core instance k to the
// name under which the import resolver finds it: "i<N>" for core instance
// N, "h" for the lowered host functions.
func (p *Provider) resolveImport(k int, module, field string) (string, string, error) {
	ci := p.plan.coreInsts[k]
	a, ok := ci.args[module]
	if !ok {
		return "", "", fmt.Errorf("imports module %q, which the instantiation does not supply", module)
	}
	src := p.plan.coreInsts[a]
	if src.module >= 0 {
		return fmt.Sprintf("i%d", a), field, nil
	}
	r, ok := src.items[field]
	if !ok {
		return "", "", fmt.Errorf("imports %q %q, which the argument instance does not export", module, field)
	}
	if r.inst < 0 {
		return "h", fmt.Sprintf("f%d", r.lower), nil
	}
	return fmt.Sprintf("i%d", r.inst), r.name, nil
}

// checkOptions refuses a canon lift or lower of f without the memory or
// realloc option its type requires (canonopt validation). Without it the
// first call that moved such a value trapped.
func checkOptions(f *cabi.Func, op optsPlan, lower bool) error {
	memory, realloc := f.Needs(lower)
	if memory && op.memory == nil {
		return fmt.Errorf("canonical option memory is required: its type holds strings or lists, or its parameters or result do not fit in core values")
	}
	if realloc && op.realloc == nil {
		if lower {
			return fmt.Errorf("canonical option realloc is required: its result holds strings or lists")
		}
		return fmt.Errorf("canonical option realloc is required: its parameters hold strings or lists, or do not fit in core parameters")
	}
	return nil
}

// notWITPackage refuses a WIT package in its binary encoding (a component
// of types alone: no core module, no function exported), which is a
// component by its header: it loaded as a provider of no tools without a
// word, and inspect printed an empty world (TestWITPackageNotLoaded).
func notWITPackage(b []byte, pl *plan) error {
	if len(pl.modules) > 0 || len(pl.exports) > 0 {
		return nil
	}
	if _, err := wit.DecodeBinary("", b, wit.Options{AllFeatures: true}); err != nil {
		return nil
	}
	return errors.New("a WIT package (the binary encoding of WIT: types alone, no code), not a component to run: it has no functions to serve as tools; 'aios-host wit FILE' prints its WIT")
}

// Tool naming: a function exported at the top level keeps its name; a
// function of an exported interface is named by its function name when that
// is unique in the component, else "<interface>.<function>" with the
// interface's short name, else the full interface name made MCP-legal.
func (p *Provider) buildTools(comp *cabi.Compiler, providerID string) error {
	count := map[string]int{}
	for _, e := range p.plan.exports {
		count[e.name]++
	}
	// How many functions "<interface>.<function>" would name: when two
	// do (x:y/api and p:q/api, each with f), neither takes "api.f", which
	// would otherwise go to whichever was exported first.
	short := map[string]int{}
	for _, e := range p.plan.exports {
		if e.iface != "" && count[e.name] > 1 {
			short[shortIface(e.iface)+"."+e.name]++
		}
	}
	if providerID == "" {
		providerID = p.meta.ID
	}
	if providerID == "" {
		base := strings.TrimSuffix(filepath.Base(p.path), filepath.Ext(p.path))
		providerID = "component." + sanitizeID(base)
	}
	if err := abi.ValidateProviderID(providerID); err != nil {
		return err
	}
	p.reg = abi.ToolRegister{Format: abi.FormatVersion, Provider: abi.ProviderInfo{ID: providerID, Runtime: abi.RuntimeComponent,
		Name: p.meta.Name, Version: p.meta.Version, Description: p.meta.Description, Capabilities: p.meta.Capabilities}}
	used := map[string]bool{}
	for _, e := range p.plan.exports {
		if isQJSInit(e) {
			continue // componentize-qjs's runtime initializer, not a tool
		}
		name := e.name
		if e.iface != "" && count[e.name] > 1 {
			name = shortIface(e.iface) + "." + e.name
			if short[name] > 1 {
				name = sanitizeName(e.iface) + "." + e.name
			}
		}
		name = sanitizeName(name)
		if used[name] {
			return fmt.Errorf("two exported functions map to the tool name %q", name)
		}
		if err := abi.ValidateToolName(name); err != nil {
			return err
		}
		used[name] = true
		// A function an instance exports may have no name of its own (a
		// lifted function exported under e.name): the errors said
		// "function  parameter s", naming nothing (TestUnsupportedTypeNamed).
		wf := e.fn.wf
		if wf.Name != e.name {
			c := *wf
			c.Name = e.name
			wf = &c
		}
		f, err := cabi.NewFunc(comp, wf)
		if err != nil {
			return fmt.Errorf("export %s: %w", qualified(e), err)
		}
		t := &tool{exp: e, fn: f, witFn: wf, idx: len(p.order)}
		_, rs := f.CoreSignature(false)
		t.nResults = len(rs)
		t.jsonTool = isJSONTool(wf)
		def := abi.ToolDef{Name: name, Description: wf.Docs, Version: p.meta.Version}
		if t.jsonTool {
			def.Parameters = map[string]any{"type": "object"}
		} else {
			if err := wit.FuncJSONCompatible(wf); err != nil {
				return fmt.Errorf("export %s: %w", qualified(e), err)
			}
			def.Parameters = wit.FuncParamsSchema(wf)
			def.Returns = wit.FuncResultSchema(wf)
		}
		if m, ok := p.meta.Tools[name]; ok {
			if m.Parameters != nil {
				def.Parameters = m.Parameters
			}
			if m.Returns != nil {
				def.Returns = m.Returns
			}
			if m.Description != "" {
				def.Description = m.Description
			}
			if m.Version != "" {
				def.Version = m.Version
			}
			def.CapabilityRequired = m.CapabilityRequired
			def.Tags, def.Examples = m.Tags, m.Examples
			def.Idempotent, def.MCPExportable = m.Idempotent, m.MCPExportable
			def.LatencyClass, def.PermissionLevel = m.LatencyClass, m.PermissionLevel
			def.Deprecated, def.Deprecation = m.Deprecated || m.Deprecation != nil, m.Deprecation
		}
		if def.Description == "" {
			def.Description = fmt.Sprintf("%s (WebAssembly component function %s)", name, qualified(e))
		}
		if e.fn.lift != nil {
			if err := checkOptions(f, e.fn.opts, false); err != nil {
				return fmt.Errorf("export %s: canon lift: %w", name, err)
			}
		}
		p.tools[name] = t
		p.order = append(p.order, t)
		t.def = def
		p.reg.Tools = append(p.reg.Tools, def)
	}
	for _, k := range slices.Sorted(maps.Keys(p.meta.Tools)) {
		if _, ok := p.tools[k]; !ok {
			names := slices.Sorted(maps.Keys(p.tools))
			return fmt.Errorf("custom section %s: tools.%q is not a tool of the component (its tools: %s)", MetaSection, k, strings.Join(names, ", "))
		}
	}
	return nil
}

// isQJSInit recognises the `init: func(shim: string, script: string,
// entry-path: option<string>, disable-gc: bool) -> result<_, string>` that
// componentize-qjs components export for their JS runtime.
func isQJSInit(e exportPlan) bool {
	f := e.fn.wf
	if e.iface != "" || e.name != "init" || len(f.Params) != 4 {
		return false
	}
	want := []string{"shim", "script", "entry-path", "disable-gc"}
	for i, p := range f.Params {
		if p.Name != want[i] {
			return false
		}
	}
	return true
}

func qualified(e exportPlan) string {
	if e.iface == "" {
		return e.name
	}
	return e.iface + "#" + e.name
}

// isJSONTool recognises f(params-json: string) -> result<string, string>:
// params arrive as the JSON text of the call's params, and the ok string is
// parsed as JSON.
func isJSONTool(f *wit.Func) bool {
	return len(f.Params) == 1 && f.Params[0].Name == "params-json" && f.Params[0].Type.Kind == wit.KindString &&
		f.Result != nil && f.Result.Kind == wit.KindResult && f.Result.Ok != nil && f.Result.Ok.Kind == wit.KindString
}

func shortIface(iface string) string {
	s := iface
	if i := strings.IndexByte(s, '@'); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func sanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := b.String()
	if len(out) > 128 {
		out = out[:128]
	}
	return out
}

// sanitizeID is the default provider id's label from the file stem: lower
// case, other characters than a-z 0-9 _ - made '-', at most 128 bytes as
// abi.LocalProviderID's (a file of a longer name, up to the 255 bytes a
// file name may have, failed its load with "invalid provider id", an id
// the author never wrote: TestLongFileNameLoads).
func sanitizeID(s string) string {
	s = strings.ToLower(s)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
		if b.Len() >= 128 {
			break
		}
	}
	out := strings.Trim(b.String(), "-_")
	if out == "" {
		out = "unnamed"
	}
	return out
}

// Describe implements abi.Provider.
func (p *Provider) Describe() *abi.ToolRegister { return &p.reg }

// Close implements abi.Provider.
func (p *Provider) Close() error {
	if !p.closed.CompareAndSwap(false, true) {
		return nil
	}
	// The calls waiting for a busy instance are told now.
	p.bound.Close(abi.Errorf(abi.Unavailable, "component %s is closed", p.reg.Provider.ID))
	if p.calls.Load() == 0 {
		return p.shut()
	}
	return nil // the last call in flight shuts it (endCall)
}

// shut stops the watchdog and closes the runtime, once.
func (p *Provider) shut() (err error) {
	p.shutOnce.Do(func() {
		p.watch.close()
		err = p.rt.Close(context.Background())
	})
	return err
}

// beginCall counts a call in; false when p is closed. Close stores closed
// before it reads calls, a call adds itself before it reads closed: one of
// the two sees the other.
func (p *Provider) beginCall() bool {
	p.calls.Add(1)
	if p.closed.Load() {
		p.endCall()
		return false
	}
	return true
}

// endCall counts a call out; the last one after Close shuts p.
func (p *Provider) endCall() {
	if p.calls.Add(-1) == 0 && p.closed.Load() {
		if err := p.shut(); err != nil {
			p.logger.Warn("closing component runtime", "component", p.reg.Provider.ID, "err", err)
		}
	}
}

// WIT returns the exported functions' WIT signatures, for inspect.
func (p *Provider) Functions() []*wit.Func {
	var out []*wit.Func
	for _, t := range p.order {
		out = append(out, t.witFn)
	}
	return out
}

var errHostAbort = errors.New("host function aborted the call")

// instance is one instantiation of the component's core modules.
type instance struct {
	p     *Provider
	mods  []api.Module
	host  api.Module
	funcs []api.Function // per export
	posts []api.Function // per export, may be nil
	cxs   []cabi.Context // per export
	lowCx []cabi.Context // per lowered import
	// lowReady tells which lowCx are final; imports called by start
	// functions, before every core instance exists, get a partial context.
	lowReady []bool
	stack    []uint64
	state    *callState
	cs       callState // the state of the running call (state points here)
	broken   bool
	table    handleTable // host resources (WASI streams) handed to the guest
	// deadline (UnixNano) of the running call and why the watchdog
	// stopped it (see watchdog.go).
	deadline atomic.Int64
	killed   atomic.Int32
	ctxSlots [2]uint32 // context.get/set of the running call's task
	// clocks and random source of this instance (sources.go): fake
	// unless the provider has the real ones.
	src Sources
	// ticks are the instrumented modules' $tick globals (watchdog.go);
	// initCtx is the context of a running instantiation (start functions).
	ticks   []api.MutableGlobal
	initCtx context.Context
	lifted  map[*funcVal]*liftedFn
	// noLeave counts the running cabi_realloc and post-return calls,
	// during which a guest may not call an import (the Canonical ABI's
	// may_leave): answering would run cabi_realloc inside itself, and
	// wazero's call of it is not reentrant (the recursion overflowed the
	// host's stack, killing the process).
	noLeave int
	// running is the core function of the export the running call
	// entered by (adapterFunc refuses to enter it again).
	running *coreRef
	hostCM  wazero.CompiledModule // the compiled host module (close)
	// mems are the instance's memories, which overgrown checks after each
	// call (listed at its first check, memsListed).
	mems       []api.Memory
	memsListed bool
}

type memAdapter struct{ m api.Memory }

func (a memAdapter) Read(off, n uint32) ([]byte, bool) { return a.m.Read(off, n) }
func (a memAdapter) Write(off uint32, b []byte) bool   { return a.m.Write(off, b) }
func (a memAdapter) Size() uint32                      { return a.m.Size() }

// coreFunc resolves r, the core function a canon lift calls or uses as
// what ("core function", "realloc", "post-return"), in inst.
func (inst *instance) coreFunc(r *coreRef, what string) (api.Function, error) {
	if r == nil {
		return nil, nil
	}
	if r.inst < 0 {
		// It said "used as realloc or post-return" whatever the use.
		return nil, fmt.Errorf("%s: a lowered function (canon lower or a built-in) is not supported there, only a function of a core instance", what)
	}
	if inst.mods[r.inst] == nil {
		return nil, nil // not instantiated yet (a start function is running)
	}
	f := inst.mods[r.inst].ExportedFunction(r.name)
	if f == nil {
		return nil, fmt.Errorf("core instance %d has no function %q", r.inst, r.name)
	}
	return f, nil
}

func (inst *instance) context(o optsPlan) (cabi.Context, error) {
	var cx cabi.Context
	cx.Encoding = cabi.StringEncoding(o.enc)
	if o.memory != nil && inst.mods[o.memory.inst] != nil {
		m := inst.mods[o.memory.inst].ExportedMemory(o.memory.name)
		if m == nil {
			return cx, fmt.Errorf("core instance %d has no memory %q", o.memory.inst, o.memory.name)
		}
		cx.Mem = memAdapter{m}
	}
	rf, err := inst.coreFunc(o.realloc, "realloc")
	if err != nil {
		return cx, err
	}
	if err := checkCoreSig(rf, "realloc", reallocSig, reallocSig[:1]); err != nil {
		return cx, err
	}
	if rf != nil {
		stack := make([]uint64, 4)
		cx.Realloc = func(old, oldSize, align, size uint32) (uint32, error) {
			stack[0], stack[1], stack[2], stack[3] = uint64(old), uint64(oldSize), uint64(align), uint64(size)
			ctx := context.Background()
			if inst.state != nil {
				ctx = inst.state.wctx
			}
			inst.noLeave++
			err := rf.CallWithStack(ctx, stack)
			inst.noLeave--
			if err != nil {
				return 0, fmt.Errorf("cabi_realloc: %w", err)
			}
			return uint32(stack[0]), nil
		}
	}
	return cx, nil
}

func (p *Provider) newInstance(ctx context.Context) (*instance, error) {
	inst := &instance{p: p, mods: make([]api.Module, len(p.plan.coreInsts)),
		lowCx: make([]cabi.Context, len(p.plan.lowers)), lowReady: make([]bool, len(p.plan.lowers))}
	hb := p.rt.NewHostModuleBuilder("h")
	for i, lp := range p.plan.lowers {
		sig := p.lowSigs[i]
		var fn api.GoModuleFunc
		if lp.builtin != "" {
			fn = inst.builtinFunc(lp.builtin, lp.slot)
		} else {
			fn = inst.hostFunc(i)
		}
		hb.NewFunctionBuilder().WithGoModuleFunction(fn, coreTypes(sig.params), coreTypes(sig.results)).Export(fmt.Sprintf("f%d", i))
	}
	if p.instrumented {
		hb.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(inst.tick), nil, []api.ValueType{api.ValueTypeI32}).Export(instrument.TickImport)
	}
	hc, err := hb.Compile(ctx)
	if err != nil {
		return nil, err
	}
	// The compiled host module holds this instance's host functions, and
	// through them the instance and its memories: the runtime keeps it
	// until it is closed (close), else every instance thrown away leaked
	// its linear memory.
	inst.hostCM = hc
	host, err := p.rt.InstantiateModule(ctx, hc, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		_ = hc.Close(ctx)
		return nil, err
	}
	inst.host = host
	rctx := experimental.WithImportResolver(ctx, func(name string) api.Module {
		if name == "h" || (name == instrument.TickModule && p.instrumented) {
			return host
		}
		var k int
		if _, err := fmt.Sscanf(name, "i%d", &k); err == nil && k >= 0 && k < len(inst.mods) {
			return inst.mods[k]
		}
		return nil
	})
	fail := func(err error) (*instance, error) {
		inst.close()
		return nil, err
	}
	// Start functions run under ctx: aios.tick stops them when it ends.
	// A host function they call that fails records why in inst.state
	// (startState), read below.
	inst.initCtx = ctx
	defer func() { inst.initCtx, inst.state = nil, nil }()
	for k, cm := range p.compiled {
		if cm == nil {
			continue
		}
		m, err := p.rt.InstantiateModule(rctx, cm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
		if err != nil {
			if st := inst.state; st != nil && st.hostErr != nil {
				// wazero's own error says only "host function aborted
				// the call".
				err = fmt.Errorf("start function: %w", st.hostErr)
			} else {
				err = p.startTrap(k, err)
			}
			return fail(fmt.Errorf("core instance %d: %w", k, err))
		}
		inst.mods[k] = m
		if p.instrumented {
			g, ok := m.ExportedGlobal(instrument.TickExport).(api.MutableGlobal)
			if !ok {
				return fail(fmt.Errorf("core instance %d: the instrumented module lacks its %s global", k, instrument.TickExport))
			}
			inst.ticks = append(inst.ticks, g)
		}
	}
	for i, lp := range p.plan.lowers {
		cx, err := inst.context(lp.opts)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", lp.where, err))
		}
		inst.lowCx[i] = cx
		inst.lowReady[i] = true
	}
	maxStack := 1
	for _, t := range p.order {
		f, err := inst.coreFunc(t.exp.fn.lift, "core function")
		if err != nil {
			return fail(fmt.Errorf("export %s: %w", t.def.Name, err))
		}
		post, err := inst.coreFunc(t.exp.fn.opts.postReturn, "post-return")
		if err != nil {
			return fail(fmt.Errorf("export %s: %w", t.def.Name, err))
		}
		cx, err := inst.context(t.exp.fn.opts)
		if err != nil {
			return fail(fmt.Errorf("export %s: %w", t.def.Name, err))
		}
		ps, rs := t.fn.CoreSignature(false)
		if err := checkCoreSig(f, "core function", ps, rs); err != nil {
			return fail(fmt.Errorf("export %s: %w", t.def.Name, err))
		}
		if err := checkCoreSig(post, "post-return", rs, nil); err != nil {
			return fail(fmt.Errorf("export %s: %w", t.def.Name, err))
		}
		maxStack = max(maxStack, len(ps), len(rs))
		inst.funcs = append(inst.funcs, f)
		inst.posts = append(inst.posts, post)
		inst.cxs = append(inst.cxs, cx)
	}
	inst.stack = make([]uint64, 0, maxStack)
	// Reactors need no call here: wit-component adds a core module whose
	// start function calls the main module's _initialize.
	return inst, nil
}

var reallocSig = []cabi.CoreType{cabi.I32, cabi.I32, cabi.I32, cabi.I32}

// checkCoreSig refuses a core function (nil passes) whose type is not
// params -> results: the Canonical ABI's validation of canon lift's
// function and of the realloc and post-return options. Comparing only
// the counts let an f64 result be read as a u32, and a post-return of
// another arity fail every call after the guest had run.
func checkCoreSig(f api.Function, what string, params, results []cabi.CoreType) error {
	if f == nil {
		return nil
	}
	d := f.Definition()
	same := func(got []api.ValueType, want []cabi.CoreType) bool {
		if len(got) != len(want) {
			return false
		}
		for i, w := range coreTypes(want) {
			if got[i] != w {
				return false
			}
		}
		return true
	}
	if !same(d.ParamTypes(), params) || !same(d.ResultTypes(), results) {
		return fmt.Errorf("%s has type %s -> %s, the Canonical ABI wants %s -> %s", what,
			valueTypes(d.ParamTypes()), valueTypes(d.ResultTypes()), valueTypes(coreTypes(params)), valueTypes(coreTypes(results)))
	}
	return nil
}

func valueTypes(ts []api.ValueType) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(api.ValueTypeName(t))
	}
	b.WriteByte(']')
	return b.String()
}

func coreTypes(ts []cabi.CoreType) []api.ValueType {
	out := make([]api.ValueType, len(ts))
	for i, t := range ts {
		switch t {
		case cabi.I32:
			out[i] = api.ValueTypeI32
		case cabi.I64:
			out[i] = api.ValueTypeI64
		case cabi.F32:
			out[i] = api.ValueTypeF32
		case cabi.F64:
			out[i] = api.ValueTypeF64
		}
	}
	return out
}

func (inst *instance) close() {
	ctx := context.Background()
	for i := len(inst.mods) - 1; i >= 0; i-- {
		if inst.mods[i] != nil {
			inst.mods[i].Close(ctx)
		}
	}
	if inst.host != nil {
		inst.host.Close(ctx)
	}
	if inst.hostCM != nil {
		_ = inst.hostCM.Close(ctx)
	}
}

// overgrown reports whether a memory of the instance has grown past
// limit bytes. Such an instance is retired rather than reused: a guest
// whose heap is never given back (a Go guest's) would otherwise run out of
// memory in a later call and fail it; the next call gets a fresh instance
// (TestComponentRetiredPastThreeQuarters).
func (inst *instance) overgrown(limit uint64) bool {
	if !inst.memsListed {
		// Each module's own memory, defined or imported (an adapter
		// imports its main module's: listed once), exported or not (a
		// module's private memory grows too). Memory() is a non-nil
		// interface holding a nil pointer for a module without one.
		// Listed once: reflect is not per call.
		inst.memsListed = true
		for _, m := range inst.mods {
			if m == nil {
				continue
			}
			mem := m.Memory()
			if mem == nil || reflect.ValueOf(mem).IsNil() || slices.Contains(inst.mems, mem) {
				continue
			}
			inst.mems = append(inst.mems, mem)
		}
	}
	for _, mem := range inst.mems {
		if uint64(mem.Size()) > limit {
			return true
		}
	}
	return false
}

// get takes an idle instance or makes one; a new instance's start
// functions run until deadline dl (UnixNano; 0 = none) at most, or until
// the caller's ctx ends.
func (p *Provider) get(ctx context.Context, dl int64) (*instance, error) {
	select {
	case inst := <-p.pool:
		return inst, nil
	default:
	}
	if dl > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, time.Unix(0, dl))
		defer cancel()
	}
	return p.newInstance(ctx)
}

func (p *Provider) put(inst *instance) {
	if inst.broken || inst.overgrown(p.retireAt) {
		inst.close()
		return
	}
	select {
	case p.pool <- inst:
	default:
		inst.close()
	}
}

// importName names an imported function in messages: interface#function,
// or the function alone for a top-level import.
func importName(iface, fun string) string {
	if iface == "" {
		return fun
	}
	return iface + "#" + fun
}

// startTrap is a core instance's failed instantiation in one line, as the
// wasmtime engine's (TestStartTrapOneLine): wazero's text goes on with a
// wasm stack trace, and names the start function by its index in the
// rewritten module (one past: the rewrite adds the aios.tick import), with
// the export of that index in the module as written, another function.
func (p *Provider) startTrap(k int, err error) error {
	why, _, _ := strings.Cut(err.Error(), "\n")
	if rest, ok := strings.CutPrefix(why, "start function["); ok && p.instrumented {
		if _, reason, ok := strings.Cut(rest, "failed: "); ok {
			if ci := p.plan.coreInsts[k]; ci.module >= 0 {
				if i, ok, _ := instrument.StartFunction(p.plan.modules[ci.module]); ok {
					why = fmt.Sprintf("start function[%d] failed: %s", i, reason)
				}
			}
		}
	}
	return &oneLineError{why, err}
}

// oneLineError says msg and wraps err.
type oneLineError struct {
	msg string
	err error
}

func (e *oneLineError) Error() string { return e.msg }
func (e *oneLineError) Unwrap() error { return e.err }
