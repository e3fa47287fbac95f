package wasm

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
	iwire "github.com/aios-host/aios-host/internal/wire"
	"github.com/tetratelabs/wazero"
)

// Options configure a Loader.
type Options struct {
	// Config is the runtimes.wasm section; zero fields take defaults.
	Config Config
	// DataDir is the host's data directory; the compile cache defaults to
	// DataDir/cache/wasm. Empty (and no Config.CacheDir) keeps compiled
	// code in memory only.
	DataDir string
	// Logger receives load-time messages; Source.Logger is preferred for a
	// provider's own messages. Default: slog.Default().
	Logger *slog.Logger
}

// Loader loads .wasm core modules. One Loader shares a compilation cache and
// a deadline watchdog among all the providers it loads; Close it when the
// host shuts down.
type Loader struct {
	cfg      Config
	cache    wazero.CompilationCache
	logger   *slog.Logger
	wd       *watchdog
	cacheDir string
	// noInstrument forces wazero's own interruption checks (tests).
	noInstrument bool
	// workBudget overrides precompile's (tests; 0: its default).
	workBudget uint64
	// drainWait overrides closeDrainWait (tests; 0: the default).
	drainWait time.Duration

	loads sync.WaitGroup // Loads in progress, which Close waits for
	// calls counts the provider calls (and Warms) in progress, counted
	// before they read wd.closing: Close waits for them too, not only for
	// the guests its watchdog sees (a start function runs inside
	// InstantiateModule, before there is an instance to see).
	calls     atomic.Int64
	closeOnce sync.Once
	closeErr  error

	mu       sync.Mutex
	cacheOff bool // the file cache failed: compile without it (l.mu)
	fresh    int  // modules compiled since prunePeriodically last ran (l.mu)
	rts      map[rtKey]wazero.Runtime
	mods     map[modKey]*sharedModule
}

var _ abi.Loader = (*Loader)(nil)

// NewLoader returns a Loader with opts. The cache directory is created if
// missing.
func NewLoader(opts Options) (*Loader, error) {
	cfg, err := opts.Config.withDefaults()
	if err != nil {
		return nil, err
	}
	dir := cfg.CacheDir
	if dir == "" && opts.DataDir != "" {
		dir = filepath.Join(opts.DataDir, "cache", "wasm")
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	var cache wazero.CompilationCache
	if dir != "" {
		// The cache is an optimisation: a directory that cannot be made
		// costs compile time, not the runtime.
		err := os.MkdirAll(dir, 0o700)
		if err == nil {
			cache, err = wazero.NewCompilationCacheWithDir(dir)
		}
		if err != nil {
			logger.Warn("wasm: the compile cache cannot be used; compiled code is kept in memory until the host restarts",
				"cache", dir, "reason", err)
			dir = ""
		}
	}
	if cache == nil {
		cache = wazero.NewCompilationCache()
	}
	pruneCache(dir, cacheBound, logger)
	trim := min(cfg.IdleTimeout/2, 30*time.Second)
	return &Loader{cfg: cfg, cache: cache, logger: logger, cacheDir: dir,
		wd:  newWatchdog(cfg.DeadlineGranularity, trim),
		rts: make(map[rtKey]wazero.Runtime), mods: make(map[modKey]*sharedModule)}, nil
}

// Runtime implements abi.Loader.
func (l *Loader) Runtime() string { return abi.RuntimeWASM }

// Extensions implements abi.Loader.
func (l *Loader) Extensions() []string { return []string{".wasm"} }

// closeDrainWait bounds how long Close waits for the calls it interrupted
// to leave their guests.
const closeDrainWait = 5 * time.Second

// Close shuts the loader down: Loads after it fail, and so do calls of
// its providers (Unavailable). It waits for the Loads in progress,
// interrupts every call still running in a guest of its providers (they
// end Unavailable, saying the runtime is closing) and waits for them to
// leave the guests (and for the calls still making an instance, whose
// start function it cannot interrupt); only then does it stop the
// watchdog and close the shared wazero runtimes and the compile cache, so that no guest runs on
// code or memory being released. A guest that does not leave within 5 s
// (asleep with a real clock, or waiting in a host call for a nested
// call) keeps them: Close leaves them open, the watchdog still keeping
// its deadline, and says so in its error. Close its providers first (the
// host's Close does) so that their idle instances are gone too. Close
// is safe to call more than once and from several goroutines; later
// calls return the first one's error.
func (l *Loader) Close() error {
	l.closeOnce.Do(func() { l.closeErr = l.close() })
	return l.closeErr
}

func (l *Loader) close() error {
	l.mu.Lock()
	l.wd.closing.Store(true)
	l.mu.Unlock()
	l.loads.Wait()
	wait := l.drainWait
	if wait <= 0 {
		wait = closeDrainWait
	}
	until := time.Now().Add(wait)
	for {
		n := int64(l.wd.stopAll())
		if n == 0 && l.calls.Load() == 0 {
			break
		}
		n = max(n, l.calls.Load())
		if time.Now().After(until) {
			return fmt.Errorf("wasm: %d guest call(s) still running %v after Close interrupted them (asleep, or waiting in a host call); the runtimes and the compile cache are left open to them", n, wait)
		}
		time.Sleep(time.Millisecond)
	}
	l.wd.close()
	l.mu.Lock()
	for _, rt := range l.rts {
		_ = rt.Close(context.Background())
	}
	clear(l.rts)
	clear(l.mods)
	l.mu.Unlock()
	return l.cache.Close(context.Background())
}

// Load implements abi.Loader: it compiles (or fetches from the cache) the
// module at src.Path, checks that it speaks the guest ABI, instantiates one
// instance and asks it for its ToolRegister.
func (l *Loader) Load(ctx context.Context, src abi.Source) (abi.Provider, error) {
	bin, err := src.ReadFile()
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", src.Path, err)
	}
	if err := src.CheckPinned(bin); err != nil {
		return nil, fmt.Errorf("load %s: %w", src.Path, err)
	}
	return l.LoadBytes(ctx, src, bin)
}

// LoadBytes is Load with the module's bytes already in memory; src.Path
// names it in messages.
func (l *Loader) LoadBytes(ctx context.Context, src abi.Source, bin []byte) (abi.Provider, error) {
	name := src.Path
	l.mu.Lock()
	closing := l.wd.closing.Load()
	if !closing {
		l.loads.Add(1)
	}
	l.mu.Unlock()
	if closing {
		return nil, fmt.Errorf("load %s: the wasm loader is closed", name)
	}
	defer l.loads.Done()
	if err := checkHeader(name, bin); err != nil {
		return nil, err
	}
	pages, poolSize, poolKey := l.cfg.LimitsFor(src)
	if err := checkMemoryMin(name, bin, pages, src); err != nil {
		return nil, err
	}
	if err := checkElements(name, bin); err != nil {
		return nil, err
	}
	logger := src.Logger
	if logger == nil {
		logger = l.logger.With("runtime", abi.RuntimeWASM, "file", src.Path)
	}

	sm, err := l.module(ctx, name, bin, pages)
	if err != nil {
		return nil, err
	}
	loaded := false
	defer func() {
		if !loaded {
			l.release(sm)
		}
	}()
	if err := checkABI(name, sm.cm, bin); err != nil {
		return nil, err
	}
	p := &Provider{
		l: l, name: name, rt: sm.rt, cm: sm.cm, shared: sm, logger: logger, instrumented: sm.instrumented,
		sink:     newLogSink(logger, l.cfg.StdoutBytesPerSecond, l.cfg.Stdout == "discard"),
		trace:    iwire.NewTracer(logger, ""),
		poolSize: poolSize,
		start:    startIndex(bin),
		retireAt: uint64(pages) * 65536 / 4 * 3,
		pages:    pages,
		memKey:   memoryKey(src),
		live:     make(map[*instance]struct{}),
		pool:     newPool[instance](poolSize, poolKey),
		maxMsg:   l.cfg.MaxMessageBytes,
	}
	_, p.hasFree = sm.cm.ExportedFunctions()[exportFree]
	clock, random := l.cfg.Clock == "real", l.cfg.Random == "real"
	p.modCfg = p.moduleConfig(clock, random)

	inst, err := p.newInstance(ctx)
	if err != nil {
		return nil, err
	}
	inst.uncounted = true // not counted against the bound (discard must not release)
	reg, err := inst.register(ctx, src)
	if err != nil {
		p.discard(inst)
		return nil, err
	}
	p.reg = reg
	p.sink.tagProvider(reg.Provider.ID)
	// A provider granted Clock or Random gets the real sources; instances
	// made before this point used the fake ones, so start over.
	// The grants are those the host will give it (providers.<id>.trust and
	// .grants included), as the registry shows them.
	wantClock, wantRandom := grantedSys(src, reg, clock, random)
	if wantClock || wantRandom {
		p.discard(inst)
		p.modCfg = p.moduleConfig(clock || wantClock, random || wantRandom)
		if inst, err = p.newInstance(ctx); err != nil {
			return nil, err
		}
		inst.uncounted = true
	}
	inst.used.Store(true)
	p.pool.give(inst)
	l.wd.add(p)
	loaded = true
	return p, nil
}

// moduleConfig is the sandbox: no arguments, no environment, no files, no
// network (WASI preview 1 has none), empty stdin (stdout and stderr go to
// the log sink, set per instance: newInstance's stream and instStderr); unless granted, wazero's fake wall clock, a virtual monotonic
// clock (virtualClock) and a deterministic random source.
func (p *Provider) moduleConfig(realClock, realRandom bool) wazero.ModuleConfig {
	mc := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions() // _initialize runs under the watchdog, see newInstance
	p.realClock = realClock
	if realClock {
		// Sleeping (poll_oneoff) is set per instance: bounded by the
		// call's deadline (newInstance, instance.sleep).
		mc = mc.WithSysWalltime().WithSysNanotime()
	} else {
		vc := &virtualClock{}
		mc = mc.WithNanotime(vc.now, 1).WithNanosleep(vc.sleep)
	}
	if realRandom {
		mc = mc.WithRandSource(rand.Reader)
	}
	return mc
}

// register asks a fresh instance for its ToolRegister and validates it.
func (inst *instance) register(ctx context.Context, src abi.Source) (*abi.ToolRegister, error) {
	p := inst.p
	if v := inst.mod.ExportedFunction(exportVersion); v != nil {
		var res []uint64
		err := inst.guard(ctx, exportVersion, func() (err error) { res, err = v.Call(inst.ctx); return err })
		if serr := loadStopped(p.name, exportVersion, err); serr != nil {
			return nil, serr
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s", p.name, loadStepFailure(exportVersion+" failed", err, p.sink))
		}
		if got := int32(res[0]); got != ABIVersion {
			return nil, fmt.Errorf("%s: guest speaks AIOS ABI version %d; this host speaks version %d", p.name, got, ABIVersion)
		}
	}
	var res []uint64
	err := inst.guard(ctx, exportRegister, func() (err error) { res, err = inst.mod.ExportedFunction(exportRegister).Call(inst.ctx); return err })
	if serr := loadStopped(p.name, exportRegister, err); serr != nil {
		return nil, serr
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s", p.name, loadStepFailure(exportRegister+" trapped", err, p.sink))
	}
	if uint32(res[0]) == 0 {
		return nil, fmt.Errorf("%s: %w", p.name, emptyRegister(res[0]))
	}
	data, err := inst.view(res[0], "aios_register result")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	p.trace.Frame("in", data)
	codec, err := abi.DetectCodec(data)
	if err != nil {
		return nil, fmt.Errorf("%s: aios_register returned %d bytes in an %w", p.name, len(data), err)
	}
	var reg abi.ToolRegister
	if err := codec.Unmarshal(data, &reg); err != nil {
		return nil, fmt.Errorf("%s: aios_register returned a malformed ToolRegister: %w", p.name, err)
	}
	if err := checkRegisterMembers(data, codec); err != nil {
		return nil, fmt.Errorf("%s: aios_register: %w", p.name, err)
	}
	p.json = codec == abi.JSON
	if err := validateRegister(&reg, src); err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	return &reg, nil
}

// loadStopped is the error of a load step (aios_abi_version,
// aios_register) that the load's context stopped, Cancelled or Timeout as
// the start function and _initialize are (the steps ran under
// context.Background(), so a cancelled load, SIGINT while `run` loads or
// a reload superseded, went on to load_timeout:
// TestLoadCancelStopsRegister), or nil when err is none of those (both
// engines: the guard's ToolError on wazero, the epoch callback's on
// wasmtime).
func loadStopped(name, step string, err error) error {
	te, ok := err.(*abi.ToolError)
	if !ok {
		return nil
	}
	switch te.Code {
	case abi.Cancelled:
		return abi.Errorf(abi.Cancelled, "%s: the load was cancelled while the guest ran its %s; the guest was interrupted", name, step)
	case abi.Timeout:
		return abi.Errorf(abi.Timeout, "%s: the load's deadline passed while the guest ran its %s; the guest was interrupted", name, step)
	}
	return nil
}

func validateRegister(reg *abi.ToolRegister, src abi.Source) error {
	if reg.Format == 0 {
		// "format 0" named no value a guest written without an SDK wrote.
		return fmt.Errorf("the ToolRegister from aios_register has no \"format\": give \"format\": %d, the ABI version (docs/abi.md, ToolRegister)", abi.FormatVersion)
	}
	if reg.Format != abi.FormatVersion {
		return fmt.Errorf("ToolRegister format %d, want %d", reg.Format, abi.FormatVersion)
	}
	switch {
	case src.ProviderID != "":
		reg.Provider.ID = src.ProviderID
	case reg.Provider.ID == "":
		// A guest naming no id is local.<file stem>, as in every
		// other runtime (abi.LocalProviderID).
		reg.Provider.ID = src.LocalID()
	}
	if err := abi.ValidateProviderID(reg.Provider.ID); err != nil {
		return err
	}
	reg.Provider.Runtime = abi.RuntimeWASM
	if _, err := abi.ParseGrants(reg.Provider.Capabilities); err != nil {
		return fmt.Errorf("provider capabilities: %w", err)
	}
	if len(reg.Tools) == 0 {
		return errors.New("the guest registers no tools: aios_register returned an empty tools list (a Go guest calls aios.Register and aios.HandleFunc in init(): a reactor's main is never run; docs/abi.md §7)")
	}
	// Several versions of a name may come from one module (the ToolCall
	// carries the version resolved); the same name@version twice is the
	// registry's to refuse, which knows SemVer's equalities.
	for i, t := range reg.Tools {
		// Named by index: `invalid tool name ""` said neither which
		// tool nor that it had no name.
		if t.Name == "" {
			return fmt.Errorf("tools[%d] has no \"name\"", i)
		}
		if err := abi.ValidateToolName(t.Name); err != nil {
			return fmt.Errorf("tools[%d]: %w", i, err)
		}
		if _, err := abi.ParseGrants(t.CapabilityRequired); err != nil {
			return fmt.Errorf("tool %s: capability_required: %w", t.Name, err)
		}
	}
	return nil
}

// grantedSys reports whether the provider of reg, loaded from src, gets
// real clocks or a real random source that the config (clock, random)
// does not already give every provider: it asks for Clock or Random, and
// the grants the host will give it (providers.<id>.trust and .grants
// included, as the registry shows them) allow it. Both engines use it.
func grantedSys(src abi.Source, reg *abi.ToolRegister, clock, random bool) (wantClock, wantRandom bool) {
	asks, _ := abi.ParseGrants(reg.Provider.Capabilities)
	c, r := src.RealClockRandom(reg.Provider.ID, asks)
	return !clock && c, !random && r
}
