//go:build wasmtime

package wasm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand"
	"os"
	"path/filepath"
	"runtime/cgo"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	wt "github.com/bytecodealliance/wasmtime-go/v39"
	"github.com/tetratelabs/wazero/api"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/sealed"
	iwire "github.com/aios-host/aios-host/internal/wire"
	instr "github.com/aios-host/aios-host/runtimes/wasm/instrument"
)

// WasmtimeLoader loads .wasm core modules on wasmtime (cgo; build tag
// "wasmtime"). It speaks the same guest ABI through the same code as the
// wazero Loader (encodeCall, serveHost, decodeResult, validateRegister run
// on a shim of the wazero types), with this engine's own sandbox:
//
//   - WASI preview 1 from wasmtime with nothing granted: no preopens, no
//     arguments or environment, stdout and stderr to the log through pipes
//     (wasmtime_output_linux.go). Clocks, randomness and sleep are the
//     host's (wasmtime_wasi.go): fake unless granted, as on wazero, and a
//     sleep ends at the call's deadline.
//   - memory: Store.Limiter caps linear memory at MemoryLimitPages; one
//     memory only (multi-memory and threads are off: the limit is per
//     memory and does not cover shared ones).
//   - deadline: epoch interruption. One goroutine per loader increments the
//     engine's epoch every DeadlineGranularity; each call sets its store's
//     epoch deadline to the ticks left until its call deadline. Fuel was
//     measured as the alternative (docs/performance.md, "Engines (X)"):
//     it costs on every executed instruction, epochs only at loop headers
//     and function entries.
//   - compile cache: Module.Serialize/NewModuleDeserialize in the cache dir.
//   - a bounded pool of instances per provider (one Store each).
type WasmtimeLoader struct {
	cfg      Config
	logger   *slog.Logger
	engine   *wt.Engine
	cacheDir string
	stop     chan struct{}
	done     chan struct{}
	// drain counts the loads and calls in progress and refuses new ones
	// once Close has begun: Close keeps the epoch ticker for those in
	// progress.
	drain Drain

	provMu sync.Mutex
	provs  map[*wtProvider]struct{} // open providers, for idle trimming
}

var _ abi.Loader = (*WasmtimeLoader)(nil)

// NewWasmtimeLoader returns a loader on a new wasmtime engine.
func NewWasmtimeLoader(opts Options) (*WasmtimeLoader, error) {
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
	if dir != "" {
		// As on wazero: a cache that cannot be made costs compile time.
		if err := os.MkdirAll(dir, 0o700); err != nil {
			logger.Warn("wasm: the compile cache cannot be used; compiled code is kept in memory until the host restarts",
				"cache", dir, "reason", err)
			dir = ""
		}
	}
	pruneCache(dir, cacheBound, logger)
	wc := wt.NewConfig()
	wc.SetEpochInterruption(true)
	// The features wazero has (its core 2.0): a store's memory limit is
	// per memory and does not cover shared memories, so multiple and
	// shared memories (threads) would let a guest go past
	// memory_limit_pages; memory64, GC and the rest are off as on wazero.
	wc.SetWasmThreads(false)
	wc.SetWasmMultiMemory(false)
	wc.SetWasmMemory64(false)
	wc.SetWasmGC(false)
	wc.SetWasmFunctionReferences(false)
	wc.SetWasmRelaxedSIMD(false)
	wc.SetWasmWideArithmetic(false)
	wc.SetWasmTailCall(false) // wazero refuses return_call too
	l := &WasmtimeLoader{cfg: cfg, logger: logger, engine: wt.NewEngineWithConfig(wc), cacheDir: dir,
		stop: make(chan struct{}), done: make(chan struct{}), provs: map[*wtProvider]struct{}{}}
	go l.tick()
	return l, nil
}

func (l *WasmtimeLoader) tick() {
	defer close(l.done)
	t := time.NewTicker(l.cfg.DeadlineGranularity)
	defer t.Stop()
	// Idle instances are trimmed as on wazero (watchdog.go): a pass every
	// idle_timeout/2, at most 30 s.
	trimEvery := min(l.cfg.IdleTimeout/2, 30*time.Second)
	lastTrim := time.Now()
	for {
		select {
		case <-l.stop:
			return
		case now := <-t.C:
			l.engine.IncrementEpoch()
			if now.Sub(lastTrim) >= trimEvery {
				lastTrim = now
				l.provMu.Lock()
				provs := make([]*wtProvider, 0, len(l.provs))
				for p := range l.provs {
					provs = append(provs, p)
				}
				l.provMu.Unlock()
				for _, p := range provs {
					p.trim(now)
				}
			}
		}
	}
}

// ticks converts the time left into epoch ticks beyond the current one.
func (l *WasmtimeLoader) ticks(d time.Duration) uint64 {
	if d <= 0 {
		return 1
	}
	return uint64(d/l.cfg.DeadlineGranularity) + 1
}

// Runtime implements abi.Loader.
func (l *WasmtimeLoader) Runtime() string { return abi.RuntimeWASM }

// Extensions implements abi.Loader.
func (l *WasmtimeLoader) Extensions() []string { return []string{".wasm"} }

// Engine names the engine ("wasmtime").
func (l *WasmtimeLoader) Engine() string { return EngineWasmtime }

// Close refuses new loads and calls (Unavailable), stops the calls
// running in its guests as wazero's Loader.Close does (at their next
// epoch tick; they end Unavailable, saying the runtime is closing),
// waits for those in progress to end — at most 5 s (closeDrainWait): a
// guest asleep or waiting in a host call leaves only then; the epoch
// ticker keeps their deadlines meanwhile — and then stops the ticker.
// When calls are still running after that, Close says so in its error
// and the ticker stops only once they have ended. Close the providers loaded by l first.
// Close is idempotent; later calls return the first one's error.
func (l *WasmtimeLoader) Close() error {
	return l.drain.Close("wasm (wasmtime)", closeDrainWait, func() {
		close(l.stop)
		<-l.done
	})
}

// enter counts a load or call in progress; it fails once Close has begun.
// Call leave when enter succeeded.
func (l *WasmtimeLoader) enter() error { return l.drain.Enter("wasm (wasmtime) loader") }

func (l *WasmtimeLoader) leave() { l.drain.Leave() }

// Load implements abi.Loader.
func (l *WasmtimeLoader) Load(ctx context.Context, src abi.Source) (abi.Provider, error) {
	bin, err := src.ReadFile()
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", src.Path, err)
	}
	if err := src.CheckPinned(bin); err != nil {
		return nil, fmt.Errorf("load %s: %w", src.Path, err)
	}
	return l.LoadBytes(ctx, src, bin)
}

// compile compiles bin or deserializes it from the cache.
func (l *WasmtimeLoader) compile(name string, bin []byte) (*wt.Module, error) {
	// The features wazero has (NewWasmtimeLoader); wasmtime's C API
	// cannot turn extended-const off, so it is refused here, before the
	// cache is read, in wazero's words: a module that loaded on wasmtime
	// failed on wazero, the default engine (TestExtendedConstAsWazero).
	if where, op, ok := instr.ExtendedConst(bin); ok {
		return nil, fmt.Errorf("%s: invalid WebAssembly module: %s: %s is not supported in a constant expression as feature \"extended-const\" is disabled", name, where, op)
	}
	// Tables are bounded in all, as on wazero (the store's limiter bounds
	// each table, not their number).
	if capped, err := instr.CapTables(bin); errors.Is(err, instr.ErrTableLimit) {
		return nil, fmt.Errorf("%s: %w", name, err)
	} else if err == nil {
		bin = capped
	}
	var path string
	var key []byte // the source's digest: the seal ties an entry to it
	if l.cacheDir != "" {
		sum := sha256.Sum256(bin)
		key = sum[:]
		// Sealed (internal/sealed): wasmtime checks a serialized module's
		// header, not its code, and a corrupted code byte would run.
		path = filepath.Join(l.cacheDir, "wasmtime-v39-sealed-"+hex.EncodeToString(sum[:])+".cwasm")
		if data, err := sealed.ReadFile(path, key); err == nil {
			if m, err := wt.NewModuleDeserialize(l.engine, data); err == nil {
				return m, nil
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			l.logger.Warn("wasmtime cache entry unusable; recompiling", "file", path, "error", err)
		}
	}
	m, err := wt.NewModule(l.engine, bin)
	if err != nil {
		return nil, fmt.Errorf("%s: invalid WebAssembly module: %s", name, WasmtimeErrorText(err.Error()))
	}
	if path != "" {
		if data, err := m.Serialize(); err == nil && sealed.WriteFile(path, data, key) == nil {
			// As on wazero: bounded while the host runs, not only at start.
			noteCompiled(l.cacheDir, 1, l.logger)
		}
	}
	return m, nil
}

func wtValueType(k wt.ValKind) api.ValueType {
	switch k {
	case wt.KindI32:
		return api.ValueTypeI32
	case wt.KindI64:
		return api.ValueTypeI64
	case wt.KindF32:
		return api.ValueTypeF32
	case wt.KindF64:
		return api.ValueTypeF64
	}
	return api.ValueTypeExternref
}

func wtSig(ft *wt.FuncType) sig {
	var s sig
	for _, v := range ft.Params() {
		s.params = append(s.params, wtValueType(v.Kind()))
	}
	for _, v := range ft.Results() {
		s.results = append(s.results, wtValueType(v.Kind()))
	}
	return s
}

// checkABIWasmtime is checkABI over wasmtime's module types (same tables,
// same messages).
func checkABIWasmtime(name string, m *wt.Module, bin []byte) error {
	var problems, missing []string
	funcs := map[string]sig{}
	kinds := map[string]string{}
	hasMem := false
	for _, e := range m.Exports() {
		switch t := e.Type(); {
		case t.FuncType() != nil:
			funcs[e.Name()] = wtSig(t.FuncType())
			kinds[e.Name()] = "function"
		case t.MemoryType() != nil:
			hasMem = hasMem || e.Name() == exportMemory
			kinds[e.Name()] = "memory"
		case t.GlobalType() != nil:
			kinds[e.Name()] = "global"
		case t.TableType() != nil:
			kinds[e.Name()] = "table"
		}
	}
	if !hasMem {
		missing = append(missing, exportMemory)
	}
	for _, e := range guestExports {
		got, ok := funcs[e.name]
		if !ok {
			if e.required {
				missing = append(missing, e.name)
			}
			continue
		}
		if !sameTypes(got.params, e.sig.params) || !sameTypes(got.results, e.sig.results) {
			problems = append(problems, fmt.Sprintf("export %s has type %s, want %s", e.name, sigString(got), sigString(e.sig)))
		}
	}
	missing, wrongKind := exportKinds(missing, func(name string) string { return kinds[name] })
	problems = append(wrongKind, problems...)
	if len(missing) > 0 {
		problems = append([]string{"missing export(s) " + strings.Join(missing, ", ")}, problems...)
	}
	var foreign foreignImports
	var others []string // imports other than functions, after those as on wazero
	for _, im := range m.Imports() {
		mod, fn := im.Module(), ""
		if n := im.Name(); n != nil {
			fn = *n
		}
		ft := im.Type().FuncType()
		if ft == nil {
			kind := byte(instr.KindTag)
			switch t := im.Type(); {
			case t.MemoryType() != nil:
				kind = instr.KindMemory
			case t.TableType() != nil:
				kind = instr.KindTable
			case t.GlobalType() != nil:
				kind = instr.KindGlobal
			}
			others = append(others, nonFuncImportProblem(kind, mod, fn))
			continue
		}
		switch {
		case mod == "wasi_snapshot_preview1":
			if why := wasiImportProblem(fn, wtSig(ft)); why != "" {
				problems = append(problems, why)
			}
		case mod == "aios":
			want, ok := hostImports[fn]
			if !ok {
				known := make([]string, 0, len(hostImports))
				for k := range hostImports {
					known = append(known, k)
				}
				sort.Strings(known)
				problems = append(problems, fmt.Sprintf("imports aios.%s, which ABI v1 does not define (it has %s)", fn, strings.Join(known, ", ")))
				continue
			}
			got := wtSig(ft)
			if !sameTypes(got.params, want.params) || !sameTypes(got.results, want.results) {
				problems = append(problems, fmt.Sprintf("imports aios.%s with type %s, want %s", fn, sigString(got), sigString(want)))
			}
		default:
			foreign.add(mod, fn)
		}
	}
	problems = append(problems, foreign.problems()...)
	problems = append(problems, others...)
	return abiProblems(name, bin, problems)
}

// wtProvider is one core module loaded on wasmtime.
type wtProvider struct {
	l        *WasmtimeLoader
	name     string
	module   *wt.Module
	linker   *wt.Linker
	reg      *abi.ToolRegister
	sink     *logSink
	pages    uint32
	memKey   string // its runtimes.wasm.providers key, for messages (memoryKey)
	poolSize int
	start    int64 // the module's start function (its index as written), or -1
	// shim is a wazero-engine Provider value carrying only what the shared
	// guest-ABI code reads (json, maxMsg, sink): serveHost runs on it.
	shim *Provider
	out  *guestOutput // guest stdout and stderr into sink
	sys  *wtSys       // clocks and random source (wasmtime_wasi.go)

	pool     *pool[wtInstance]
	mu       sync.Mutex
	live     int  // instances made and not closed (under mu)
	released bool // module and linker deleted (under mu; release)
	closed   atomic.Bool
}

var _ abi.Provider = (*wtProvider)(nil)

// LoadBytes is Load with the module's bytes in memory.
func (l *WasmtimeLoader) LoadBytes(ctx context.Context, src abi.Source, bin []byte) (_ abi.Provider, err error) {
	name := src.Path
	if err := l.enter(); err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	defer l.leave()
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
		logger = l.logger.With("runtime", abi.RuntimeWASM, "engine", EngineWasmtime, "file", src.Path)
	}
	m, err := l.compile(name, bin)
	if err != nil {
		return nil, err
	}
	if err := checkABIWasmtime(name, m, bin); err != nil {
		return nil, err
	}
	p := &wtProvider{l: l, name: name, module: m, pages: pages, memKey: memoryKey(src), poolSize: poolSize, start: startIndex(bin),
		sink: newLogSink(logger, l.cfg.StdoutBytesPerSecond, l.cfg.Stdout == "discard"),
		pool: newPool[wtInstance](poolSize, poolKey)}
	p.shim = &Provider{name: name, logger: logger, sink: p.sink, maxMsg: l.cfg.MaxMessageBytes, trace: iwire.NewTracer(logger, "")}
	p.sys = newWtSys()
	clock, random := l.cfg.Clock == "real", l.cfg.Random == "real"
	p.sys.realClock.Store(clock)
	p.sys.realRandom.Store(random)
	if p.out, err = newGuestOutput(p.sink); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer func() {
		if err != nil {
			p.out.close()
			p.closed.Store(true)
			p.release() // a load that fails leaks nothing either
		}
	}()
	if p.linker, err = p.newLinker(); err != nil {
		return nil, fmt.Errorf("%s: linker: %w", name, err)
	}
	// Under the load's context, as on wazero: its cancel (SIGINT while
	// run loads, a reload superseded) stops a start that loops.
	inst, err := p.newInstance(ctx, time.Time{})
	if err != nil {
		return nil, err
	}
	reg, err := inst.register(ctx, src)
	if err != nil {
		p.closeInstance(inst)
		return nil, err
	}
	p.reg = reg
	p.sink.tagProvider(reg.Provider.ID)
	// As on wazero: a provider granted Clock or Random gets the real
	// sources (its grants as the host will give them); the instance that
	// registered ran with the fake ones, so start over.
	wantClock, wantRandom := grantedSys(src, reg, clock, random)
	if wantClock || wantRandom {
		p.closeInstance(inst)
		p.sys.realClock.Store(clock || wantClock)
		p.sys.realRandom.Store(random || wantRandom)
		if inst, err = p.newInstance(ctx, time.Time{}); err != nil {
			return nil, err
		}
	}
	p.pool.give(inst) // not counted against the bound (overflow)
	l.provMu.Lock()
	l.provs[p] = struct{}{}
	l.provMu.Unlock()
	return p, nil
}

// newLinker defines WASI preview 1 and the "aios" host module. Host
// functions find their instance through the store's data.
func (p *wtProvider) newLinker() (*wt.Linker, error) {
	lk := wt.NewLinker(p.l.engine)
	if err := lk.DefineWasi(); err != nil {
		return nil, err
	}
	if err := p.defineWASISys(lk); err != nil {
		return nil, fmt.Errorf("WASI clocks: %w", err)
	}
	i32t, i64t := wt.NewValType(wt.KindI32), wt.NewValType(wt.KindI64)
	reqTy := wt.NewFuncType([]*wt.ValType{i32t, i32t}, []*wt.ValType{i64t})
	for _, op := range []string{opCallTool, opSpaceRead, opSpaceWrite, opComplete} {
		if err := lk.FuncNew("aios", op, reqTy, func(c *wt.Caller, args []wt.Val) ([]wt.Val, *wt.Trap) {
			return p.hostCall(c, op, uint32(args[0].I32()), uint32(args[1].I32()))
		}); err != nil {
			return nil, err
		}
	}
	// aios.tick is the import the wazero engine's loop instrumentation
	// calls; a guest may import it (docs/abi.md §4). Epochs interrupt here,
	// so it only hands out a budget.
	tickTy := wt.NewFuncType(nil, []*wt.ValType{i32t})
	budget := []wt.Val{wt.ValI32(tickBudget)} // only read by wasmtime-go
	if err := lk.FuncNew("aios", tickImport, tickTy, func(*wt.Caller, []wt.Val) ([]wt.Val, *wt.Trap) {
		return budget, nil
	}); err != nil {
		return nil, err
	}
	logTy := wt.NewFuncType([]*wt.ValType{i32t, i32t, i32t}, nil)
	if err := lk.FuncNew("aios", opLog, logTy, func(c *wt.Caller, args []wt.Val) ([]wt.Val, *wt.Trap) {
		p.hostLog(c, args[0].I32(), uint32(args[1].I32()), uint32(args[2].I32()))
		return nil, nil
	}); err != nil {
		return nil, err
	}
	return lk, nil
}

// wtMem adapts a guest memory snapshot to the two api.Memory methods the
// shared serveHost uses (Read and Size).
type wtMem struct {
	api.Memory
	data []byte
}

func (m wtMem) Size() uint32 { return uint32(len(m.data)) }
func (m wtMem) Read(off, n uint32) ([]byte, bool) {
	if uint64(off)+uint64(n) > uint64(len(m.data)) {
		return nil, false
	}
	return m.data[off : off+n : off+n], true
}

// callerMem is the calling guest's memory: inst's (c.Data, when the host
// function needs its instance anyway) as newInstance found it once its
// start functions had run, else the caller's export "memory". A lookup by
// name through wasmtime-go (GetExport) on every host call made an Extern
// with a finalizer each time: a virtual-clock reading cost 3.5 µs, most
// of it in SetFinalizer; 0.87 µs since (BenchmarkEngineHostCall).
func callerMem(c *wt.Caller, inst *wtInstance) []byte {
	if inst != nil && inst.mem != nil {
		return wtMemData(c, inst.mem)
	}
	return wtCallerMem(c)
}

func (p *wtProvider) hostLog(c *wt.Caller, lvl int32, ptr, n uint32) {
	level := slog.LevelInfo
	switch lvl {
	case 0:
		level = slog.LevelDebug
	case 2:
		level = slog.LevelWarn
	case 3:
		level = slog.LevelError
	}
	inst, _ := c.Data().(*wtInstance)
	msg, ok := wtMem{data: callerMem(c, inst)}.Read(ptr, n)
	if !ok {
		msg = []byte(fmt.Sprintf("(aios.log called with [%d, +%d) outside guest memory)", ptr, n))
		level = slog.LevelWarn
	}
	// msg is a view of guest memory, read at once by sink.log (which cuts
	// it at 4 KiB) while the guest waits; copying it whole cost an
	// allocation as large as the guest asked for.
	var logger *slog.Logger
	if inst != nil && inst.shim.env != nil {
		logger = inst.shim.env.Logger()
	}
	p.sink.log(level, msg, logger)
}

// hostCall serves one request/response import with the shared serveHost
// and delivers the encoded answer through the guest's aios_alloc.
func (p *wtProvider) hostCall(c *wt.Caller, op string, ptr, n uint32) (ret []wt.Val, trap *wt.Trap) {
	inst, _ := c.Data().(*wtInstance)
	defer func() {
		if r := recover(); r != nil {
			if inst != nil {
				inst.hostErr = fmt.Errorf("aios.%s: host function panicked: %v", op, r)
			}
			ret, trap = nil, wt.NewTrap(fmt.Sprintf("aios.%s: host function failed: %v", op, r))
		}
	}()
	if inst != nil && inst.allocating {
		// As on wazero (instance.alloc): answering would run aios_alloc
		// inside aios_alloc, recursing until the stack overflows.
		return nil, wt.NewTrap(fmt.Sprintf("aios.%s called from inside aios_alloc or aios_free: the guest's allocator may not make host calls", op))
	}
	var shim *instance
	if inst != nil && inst.shim.env != nil {
		shim = inst.shim
	}
	// serveHost copies what it keeps out of guest memory before any guest
	// code runs again.
	gmem := wtMem{data: callerMem(c, inst)}
	var value any
	var terr *abi.ToolError
	var useJSON bool
	if op == opCallTool {
		value, terr, useJSON = onOwnStack(func() (any, *abi.ToolError, bool) { return p.shim.serveHost(shim, gmem, op, ptr, n) })
	} else {
		value, terr, useJSON = p.shim.serveHost(shim, gmem, op, ptr, n)
	}
	buf := encodeAnswer(nil, op, value, terr, useJSON, p.shim.maxMsg)
	p.shim.trace.Frame("out", buf)
	// The instance's aios_alloc: a lookup by name (GetExport) made an
	// Extern with a finalizer on every host call.
	var fAlloc *wt.Func
	if inst != nil {
		fAlloc = inst.fAlloc
	}
	if fAlloc == nil {
		ex := c.GetExport(exportAlloc)
		if ex == nil || ex.Func() == nil {
			return nil, wt.NewTrap("aios." + op + ": the guest has no aios_alloc")
		}
		fAlloc = ex.Func()
	}
	if inst != nil {
		inst.allocating = true
	}
	res, err := wtCall(c, inst, fAlloc, 1, int32(len(buf)))
	if inst != nil {
		inst.allocating = false
	}
	if err != nil {
		var we *wt.Error
		if inst != nil && errors.As(err, &we) {
			if _, ok := we.ExitStatus(); ok {
				inst.exitErr = err // the call ends as the guest's exit (call)
			}
		}
		return nil, wt.NewTrap(fmt.Sprintf("aios.%s: delivering the %d-byte answer: aios_alloc(%d): %s", op, len(buf), len(buf), wtTrapText(err)))
	}
	rptr := uint32(res)
	mem := callerMem(c, inst)
	if rptr == 0 || uint64(rptr)+uint64(len(buf)) > uint64(len(mem)) {
		// In the words of instance.alloc (wazero) and docs/abi.md §3.
		why := fmt.Sprintf("aios_alloc(%d) returned 0 (the guest is out of memory)", len(buf))
		if rptr != 0 {
			why = fmt.Sprintf("aios_alloc(%d) returned [%d, %d), outside the guest's %d-byte memory", len(buf), rptr, uint64(rptr)+uint64(len(buf)), len(mem))
		}
		err := fmt.Errorf("aios.%s: delivering the %d-byte answer: %s", op, len(buf), why)
		if inst != nil {
			inst.hostErr = err
		}
		return nil, wt.NewTrap(err.Error())
	}
	copy(mem[rptr:], buf)
	return []wt.Val{wt.ValI64(int64(uint64(rptr)<<32 | uint64(len(buf))))}, nil
}

// onOwnStack runs a nested call (call_tool) on a goroutine of its own, and
// so on another thread, and waits for it. On this goroutine a nested call
// of a wasmtime guest would run on this thread's native stack below the
// calling guest's, and wasmtime gives each store its own max_wasm_stack
// (512 KiB) from where it is entered: a guest recursing most of that and
// then calling itself through call_tool overflowed the thread's stack
// within a few levels and killed the process (SIGSEGV), where wazero
// answers DepthExceeded. (The host calls a wasmtime provider on the
// caller's goroutine, as a deadline keeper, and so the nested call too.)
func onOwnStack(f func() (any, *abi.ToolError, bool)) (value any, terr *abi.ToolError, useJSON bool) {
	var panicked any
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		value, terr, useJSON = f()
	}()
	<-done
	if panicked != nil {
		panic(panicked) // to hostCall's recover, on the guest's goroutine
	}
	return value, terr, useJSON
}

// wtInstance is one instantiated guest in its own store.
type wtInstance struct {
	p            *wtProvider
	store        *wt.Store
	inst         *wt.Instance
	mem          *wt.Memory
	fAlloc       *wt.Func
	fCall        *wt.Func
	fFree        *wt.Func
	nop          *wt.Func  // does nothing; raises a host function's panic (wtCall)
	shim         *instance // carries env, call context and encode buffers for the shared code
	inPtr, inCap uint32
	hostErr      error
	exitErr      error // the guest's proc_exit inside a host call (hostCall)
	overflow     bool
	free         bool        // a busy.Chain's free unit: nothing to give back
	idleMark                 // used since the last trim pass, idle since (wtProvider.trim)
	allocating   bool        // inside the guest's aios_alloc or aios_free (a host call refuses to run)
	dl           time.Time   // the running call's (or load's) deadline, for poll_oneoff
	handle       cgo.Handle  // this instance, for the epoch callback (wasmtime_epoch.go)
	cancelled    bool        // the epoch callback stopped the guest for its caller
	closing      bool        // the epoch callback stopped the guest's call for Loader.Close
	fakeRand     *mrand.Rand // random_get's source without the Random grant (wasmtime_wasi.go)
	wallReads    int64       // readings of its fake wall clock, without the Clock grant (wasmtime_wasi.go)
}

// newInstance makes an instance and runs its start (the start function
// and _initialize) under runtimes.wasm.load_timeout and ctx's cancel and,
// for a call that needs it, under the call's deadline dl (zero: none) too: the host calls a deadline keeper without a watcher, so a
// start that ran to load_timeout held the caller that long
// (TestWasmtimeNewInstanceKeepsDeadline).
func (p *wtProvider) newInstance(ctx context.Context, dl time.Time) (_ *wtInstance, err error) {
	// Counted live before it uses the module and linker, so that Close
	// does not release them under it (release).
	p.mu.Lock()
	if p.closed.Load() || p.released {
		p.mu.Unlock()
		return nil, abi.Errorf(abi.Unavailable, "wasm provider %s is closed", p.name)
	}
	p.live++
	p.mu.Unlock()
	inst := &wtInstance{p: p}
	inst.shim = &instance{p: p.shim, enc: make([]byte, 0, 512)}
	inst.store = wt.NewStoreWithData(p.l.engine, inst)
	defer func() {
		if err != nil {
			inst.store.Close()
			p.instanceGone()
		}
	}()
	// Tables are host memory too: bounded as on wazero (instrument.MaxTableElements).
	inst.store.Limiter(int64(p.pages)*65536, instr.MaxTableElements, -1, -1, -1)
	wasi := wt.NewWasiConfig()
	if err := p.out.configure(wasi); err != nil {
		wasi.Close()
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	inst.store.SetWasi(wasi)
	inst.watchEpochs()
	defer func() {
		if err != nil {
			inst.unwatch()
		}
	}()
	startDL, byCall := time.Now().Add(p.l.cfg.LoadTimeout), false
	if !dl.IsZero() && dl.Before(startDL) {
		startDL, byCall = dl, true
	}
	inst.setDeadline(startDL)
	inst.shim.callCtx = ctx // the epoch callback and poll_oneoff see its cancel
	defer func() { inst.shim.callCtx = nil }()
	// stopped is the error of a start the call's cancel or deadline
	// interrupted, in the words of a call's (inst.call).
	stopped := func(step string, err error) error {
		switch {
		case inst.cancelled:
			return abi.Errorf(abi.Cancelled, "%s: the call was cancelled while a new instance ran its %s; the guest was interrupted", p.name, step)
		case byCall && (isInterrupt(err) || !time.Now().Before(dl)):
			return abi.Errorf(abi.Timeout, "%s: a new instance's %s ran past the call's deadline; the guest was interrupted", p.name, step)
		}
		return nil
	}
	if inst.inst, err = p.linker.Instantiate(inst.store, p.module); err != nil {
		if serr := stopped("start function", err); serr != nil {
			return nil, serr
		}
		if isInterrupt(err) {
			return nil, fmt.Errorf("%s: instantiate: the start function did not finish within runtimes.wasm.load_timeout (%v); the guest was interrupted", p.name, p.l.cfg.LoadTimeout)
		}
		return nil, &instantiateError{fmt.Sprintf("%s: instantiate: %s", p.name, p.instantiateError(err)), err}
	}
	if f := inst.inst.GetFunc(inst.store, "_initialize"); f != nil {
		if _, err := f.Call(inst.store); err != nil {
			p.out.drain()
			if serr := stopped("_initialize", err); serr != nil {
				return nil, serr
			}
			if isInterrupt(err) {
				return nil, fmt.Errorf("%s: %s", p.name, p.sink.failure(fmt.Sprintf("_initialize did not finish within runtimes.wasm.load_timeout (%v); the guest was interrupted", p.l.cfg.LoadTimeout)))
			}
			return nil, fmt.Errorf("%s: _initialize: %s", p.name, p.sink.failure(wtTrapText(err))) // wazero's words
		}
	}
	ex := inst.inst.GetExport(inst.store, exportMemory)
	if ex == nil || ex.Memory() == nil {
		return nil, fmt.Errorf("%s: the module exports no memory", p.name)
	}
	inst.mem = ex.Memory()
	inst.fAlloc = inst.inst.GetFunc(inst.store, exportAlloc)
	inst.fCall = inst.inst.GetFunc(inst.store, exportCall)
	inst.fFree = inst.inst.GetFunc(inst.store, exportFree)
	return inst, nil
}

// instantiateError is why instantiation failed, in wazero's words
// (Provider.newInstance): wasmtime's text named neither the start function
// that trapped nor the segment that did not fit ("wasm error:
// unreachable"), and a proc_exit there read "Exited with i32 exit status
// 3" (TestInstantiateFailureNamed).
func (p *wtProvider) instantiateError(err error) string {
	var we *wt.Error
	if errors.As(err, &we) {
		if code, ok := we.ExitStatus(); ok {
			return fmt.Sprintf("module closed with exit_code(%d)", code)
		}
	}
	why := wtTrapText(err)
	var tr *wt.Trap
	if !errors.As(err, &tr) {
		return why
	}
	c := tr.Code()
	switch {
	case len(tr.Frames()) > 0 && p.start >= 0: // guest code ran: the start function's
		return startFailed(p.start, why)
	case c != nil && *c == wt.MemoryOutOfBounds:
		return "a data segment does not fit in the memory: " + strings.TrimPrefix(why, "wasm error: ")
	case c != nil && (*c == wt.TableOutOfBounds || *c == wt.IndirectCallToNull):
		return "an element segment does not fit in its table: " + strings.TrimPrefix(why, "wasm error: ")
	}
	return why
}

// view returns the bytes of a packed guest buffer (valid until the guest
// runs again).
func (inst *wtInstance) view(packed uint64, what string) ([]byte, error) {
	ptr, n := uint32(packed>>32), uint32(packed)
	if n == 0 {
		return nil, fmt.Errorf("%s is empty (ptr %d, len 0)", what, ptr)
	}
	data := wtMemData(inst.store, inst.mem)
	if uint64(ptr)+uint64(n) > uint64(len(data)) {
		return nil, fmt.Errorf("%s [%d, %d) is outside the guest's %d-byte memory", what, ptr, uint64(ptr)+uint64(n), len(data))
	}
	return data[ptr : ptr+n], nil
}

func (inst *wtInstance) alloc(n uint32) (uint32, error) {
	inst.allocating = true
	res, err := wtCall(inst.store, inst, inst.fAlloc, 1, int32(n))
	inst.allocating = false
	if err != nil {
		var we *wt.Error
		if isInterrupt(err) || (errors.As(err, &we) && func() bool { _, ok := we.ExitStatus(); return ok }()) {
			return 0, err
		}
		// Named, as on wazero (instance.alloc).
		return 0, fmt.Errorf("aios_alloc(%d): %s", n, wtTrapText(err))
	}
	ptr := uint32(res)
	if ptr == 0 {
		return 0, &allocNone{n}
	}
	if size := len(wtMemData(inst.store, inst.mem)); uint64(ptr)+uint64(n) > uint64(size) {
		return 0, fmt.Errorf("aios_alloc(%d) returned [%d, %d), outside the guest's %d-byte memory", n, ptr, uint64(ptr)+uint64(n), size)
	}
	return ptr, nil
}

func (inst *wtInstance) input(n int) (uint32, error) {
	if uint32(n) <= inst.inCap && inst.inPtr != 0 {
		return inst.inPtr, nil
	}
	if inst.inPtr != 0 && inst.fFree != nil {
		inst.allocating = true // host calls refused, as on wazero (instance.input)
		_, err := wtCall(inst.store, inst, inst.fFree, 0, int32(inst.inPtr), int32(inst.inCap))
		inst.allocating = false
		if err != nil {
			var we *wt.Error
			if isInterrupt(err) || (errors.As(err, &we) && func() bool { _, ok := we.ExitStatus(); return ok }()) {
				return 0, err
			}
			// Named, as on wazero (instance.input).
			return 0, fmt.Errorf("aios_free(%d, %d): %s", inst.inPtr, inst.inCap, wtTrapText(err))
		}
	}
	want := max(uint32(n), 2*inst.inCap, 1024)
	inst.inPtr, inst.inCap = 0, 0
	ptr, err := inst.alloc(want)
	if want > uint32(n) && errors.As(err, new(*allocNone)) {
		// As on wazero (instance.input): the call's own size may fit.
		want = uint32(n)
		ptr, err = inst.alloc(want)
	}
	if err != nil {
		return 0, err
	}
	inst.inPtr, inst.inCap = ptr, want
	return ptr, nil
}

// register asks a fresh instance for its ToolRegister.
func (inst *wtInstance) register(ctx context.Context, src abi.Source) (*abi.ToolRegister, error) {
	p := inst.p
	end, byLoad := time.Now().Add(p.l.cfg.LoadTimeout), false
	if d, ok := ctx.Deadline(); ok && d.Before(end) {
		end, byLoad = d, true
	}
	inst.setDeadline(end)
	// Under the load's context, as the start is (newInstance): its cancel
	// stops a looping aios_abi_version or aios_register, which ran on to
	// load_timeout (TestWasmtimeLoadCancelStopsRegister).
	inst.shim.callCtx = ctx
	defer func() { inst.shim.callCtx = nil }()
	stopped := func(step string, err error) error {
		switch {
		case inst.cancelled:
			return loadStopped(p.name, step, abi.Errorf(abi.Cancelled, ""))
		case byLoad && (isInterrupt(err) || !time.Now().Before(end)):
			return loadStopped(p.name, step, abi.Errorf(abi.Timeout, ""))
		}
		return nil
	}
	if f := inst.inst.GetFunc(inst.store, exportVersion); f != nil {
		res, err := f.Call(inst.store)
		if serr := stopped(exportVersion, err); err != nil && serr != nil {
			return nil, serr
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s", p.name, p.loadStepError(exportVersion+" failed", exportVersion, err))
		}
		if got := res.(int32); got != ABIVersion {
			return nil, fmt.Errorf("%s: guest speaks AIOS ABI version %d; this host speaks version %d", p.name, got, ABIVersion)
		}
	}
	res, err := inst.inst.GetFunc(inst.store, exportRegister).Call(inst.store)
	if serr := stopped(exportRegister, err); err != nil && serr != nil {
		return nil, serr
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s", p.name, p.loadStepError(exportRegister+" trapped", exportRegister, err))
	}
	if uint32(res.(int64)) == 0 {
		return nil, fmt.Errorf("%s: %w", p.name, emptyRegister(uint64(res.(int64))))
	}
	data, err := inst.view(uint64(res.(int64)), "aios_register result")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	p.shim.trace.Frame("in", data)
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
	p.shim.json = codec == abi.JSON
	if err := validateRegister(&reg, src); err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	return &reg, nil
}

// loadStepError is the reason a load-time guest call failed, in wazero's
// words: one line, and naming load_timeout when the guest was interrupted
// (wasmtime's own error is a multi-line backtrace).
// what prefixes a failure other than the timeout ("aios_register
// trapped"), which names the step once (loadTimeoutError on wazero).
func (p *wtProvider) loadStepError(what, step string, err error) string {
	if isInterrupt(err) {
		return fmt.Sprintf("%s did not finish within runtimes.wasm.load_timeout (%v); the guest was interrupted", step, p.l.cfg.LoadTimeout)
	}
	// A Go guest that panics in an export writes the panic to stderr.
	p.out.drain()
	return what + ": " + p.sink.failure(wtTrapText(err))
}

// call serves one ToolCall; keep is false when the instance must go.
func (inst *wtInstance) call(ctx context.Context, call *abi.ToolCall, env abi.Env) (v any, err error, keep bool) {
	p := inst.p
	dl := callDeadline(ctx, call, p.l.cfg.DefaultDeadline)
	enc, terr := inst.shim.encodeCall(call, inst.shim.enc[:0])
	if terr != nil {
		return nil, terr, true
	}
	if !p.shim.json {
		inst.shim.enc = reusable(enc) // reused by the next call
	}
	if len(enc) > p.shim.maxMsg {
		return nil, abi.Errorf(abi.TooLarge, "call of %s encodes to %d bytes, above runtimes.wasm.max_message_bytes (%d)", call.Tool, len(enc), p.shim.maxMsg), true
	}
	p.shim.trace.Frame("out", enc)
	inst.shim.env, inst.shim.callCtx, inst.shim.cur = env, ctx, call
	inst.shim.crashes, inst.shim.awaited = inst.shim.crashes[:0], ""
	inst.hostErr, inst.exitErr = nil, nil
	defer func() { inst.shim.env, inst.shim.callCtx, inst.shim.cur = nil, nil, nil }()

	// The deadline first: input may run the guest's aios_free and
	// aios_alloc, which must not run under the last call's (or the
	// load's) spent deadline.
	inst.setDeadline(dl)
	ptr, err := inst.input(len(enc))
	if err != nil {
		if inst.closing {
			return nil, closingError(call.Tool), false
		}
		if inst.cancelled {
			return nil, abi.Errorf(abi.Cancelled, "call of %s was cancelled; the guest was interrupted", call.Tool), false
		}
		// In wazero's words (instance.call): the same failure reads the
		// same on both engines.
		if isInterrupt(err) {
			return nil, abi.Errorf(abi.Timeout, "%s ran past its deadline; the guest was interrupted", call.Tool), false
		}
		return nil, wtCrashError(call.Tool, err, inst.memoryNote()), false
	}
	copy(wtMemData(inst.store, inst.mem)[ptr:], enc)
	res, err := wtCall(inst.store, inst, inst.fCall, 1, int32(ptr), int32(len(enc)))
	if err != nil {
		if inst.hostErr != nil {
			return nil, abi.Errorf(abi.ProviderCrashed, "%s: %v%s", call.Tool, inst.hostErr, inst.memoryNote()), false
		}
		if inst.exitErr != nil {
			return nil, wtCrashError(call.Tool, inst.exitErr, inst.memoryNote()), false // in wazero's words
		}
		// Interrupted while it waited in call_tool: the message names
		// that call, in wazero's words (instance.call).
		while := ""
		if inst.shim.awaited != "" {
			while = " while it awaited " + inst.shim.awaited
		}
		if inst.closing {
			return nil, closingError(call.Tool), false
		}
		if inst.cancelled {
			return nil, abi.Errorf(abi.Cancelled, "call of %s was cancelled%s; the guest was interrupted", call.Tool, while), false
		}
		if !time.Now().Before(dl) || isInterrupt(err) {
			return nil, abi.Errorf(abi.Timeout, "%s ran past its deadline%s; the guest was interrupted", call.Tool, while), false
		}
		return nil, wtCrashError(call.Tool, err, inst.memoryNote()), false
	}
	data, err := inst.view(uint64(res), "aios_call result")
	if err != nil {
		return nil, abi.Errorf(abi.ProviderCrashed, "%s: %v", call.Tool, err), false
	}
	p.shim.trace.Frame("in", data)
	if len(data) > p.shim.maxMsg {
		return nil, abi.Errorf(abi.TooLarge, "%s returned %d bytes, above runtimes.wasm.max_message_bytes (%d)", call.Tool, len(data), p.shim.maxMsg), false
	}
	v, guestErr, protoErr := decodeResult(data)
	if protoErr != nil {
		protoErr.Message = call.Tool + ": " + protoErr.Message
		return nil, protoErr, false
	}
	if guestErr != nil {
		guestErr = knownGuestCode(guestErr)
		return nil, guestErr, inst.shim.keepAfter(guestErr)
	}
	return v, nil, true
}

// closingError is a call's error when Loader.Close stopped it, in
// wazero's words (instance.call).
func closingError(tool string) *abi.ToolError {
	return abi.Errorf(abi.Unavailable, "call of %s was stopped: the wasm runtime is closing (Loader.Close)", tool)
}

// callDeadline is when call must end: its deadline or its context's,
// whichever is first, else def from now.
func callDeadline(ctx context.Context, call *abi.ToolCall, def time.Duration) time.Time {
	dl := call.Deadline
	if d, ok := ctx.Deadline(); ok && (dl.IsZero() || d.Before(dl)) {
		dl = d
	}
	if dl.IsZero() {
		dl = time.Now().Add(def)
	}
	return dl
}

func isInterrupt(err error) bool {
	var tr *wt.Trap
	if errors.As(err, &tr) {
		if c := tr.Code(); c != nil && *c == wt.Interrupt {
			return true
		}
	}
	return strings.Contains(err.Error(), "interrupt")
}

// wtCrashError turns a wasmtime trap or WASI exit into ProviderCrashed;
// note is the instance's memoryNote.
func wtCrashError(tool string, err error, note string) *abi.ToolError {
	var we *wt.Error
	if errors.As(err, &we) {
		if code, ok := we.ExitStatus(); ok {
			return abi.Errorf(abi.ProviderCrashed, "%s: the guest exited with code %d (a Go guest exits with 2 on panic or out of memory; see the host log for its stderr)%s", tool, code, note)
		}
	}
	return abi.Errorf(abi.ProviderCrashed, "%s: the guest trapped: %s%s", tool, wtTrapText(err), note)
}

// memoryNote is memoryLimitNote of the instance's memory, as on wazero
// (instance.crashError).
func (inst *wtInstance) memoryNote() string {
	if inst.mem == nil {
		return ""
	}
	return memoryLimitNote(uint64(len(wtMemData(inst.store, inst.mem))), inst.p.pages, inst.p.memKey)
}

// trapNames are wasmtime's trap codes in the words wazero uses.
var trapNames = map[wt.TrapCode]string{
	wt.StackOverflow: "stack overflow", wt.MemoryOutOfBounds: "out of bounds memory access",
	wt.HeapMisaligned: "unaligned atomic", wt.TableOutOfBounds: "invalid table access",
	wt.IndirectCallToNull: "invalid table access", wt.BadSignature: "indirect call type mismatch",
	wt.IntegerOverflow: "integer overflow", wt.IntegerDivisionByZero: "integer divide by zero",
	wt.BadConversionToInteger: "invalid conversion to integer", wt.UnreachableCodeReached: "unreachable",
	wt.Interrupt: "interrupted (deadline)", wt.OutOfFuel: "out of fuel",
}

// wtTrapText is the reason of a wasmtime error in one line: a WASI exit in
// wazero's words, the trap's code, else the "Caused by:" line of its
// message (whose first line is only "error while executing at wasm
// backtrace:"), else its first line.
func wtTrapText(err error) string {
	var we *wt.Error
	if errors.As(err, &we) {
		if code, ok := we.ExitStatus(); ok {
			return fmt.Sprintf("module closed with exit_code(%d)", code)
		}
	}
	var tr *wt.Trap
	if errors.As(err, &tr) {
		if c := tr.Code(); c != nil {
			if name, ok := trapNames[*c]; ok {
				if *c == wt.StackOverflow {
					return name // wazero's own words, without "wasm error: "
				}
				return "wasm error: " + name
			}
		}
	}
	msg := err.Error()
	if _, cause, ok := strings.Cut(msg, "Caused by:"); ok {
		for _, l := range strings.Split(cause, "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "Stack backtrace") {
				continue
			}
			l = strings.TrimLeft(l, "0123456789: ")
			if l != "" {
				return l
			}
		}
	}
	if i := strings.IndexByte(msg, '\n'); i > 0 {
		msg = msg[:i]
	}
	return msg
}

// WasmtimeErrorText is a wasmtime error's text (not a trap's) in one
// line, as wazero's are: its first line and the reasons under "Caused
// by:", without the blank lines and the stack backtrace (RUST_BACKTRACE)
// of wasmtime's text. The component engine's errors are said the same.
func WasmtimeErrorText(msg string) string {
	head, cause, ok := strings.Cut(msg, "Caused by:")
	first, _, _ := strings.Cut(strings.TrimSpace(head), "\n")
	parts := []string{first}
	if ok {
		for _, l := range strings.Split(cause, "\n") {
			l = strings.TrimSpace(l)
			if strings.HasPrefix(l, "Stack backtrace") {
				break
			}
			if l = strings.TrimLeft(l, "0123456789: "); l != "" {
				parts = append(parts, l)
			}
		}
	}
	return strings.Join(parts, ": ")
}

// Describe implements abi.Provider.
func (p *wtProvider) Describe() *abi.ToolRegister { return p.reg }

// Call implements abi.Provider.
func (p *wtProvider) Call(ctx context.Context, call *abi.ToolCall, env abi.Env) (_ any, err error) {
	if call == nil {
		return nil, abi.NilCall(p)
	}
	if p.closed.Load() {
		return nil, abi.Errorf(abi.Unavailable, "wasm provider %s is closed", p.reg.Provider.ID)
	}
	if err := p.l.enter(); err != nil {
		return nil, err
	}
	defer p.l.leave()
	inst, err := p.get(ctx, call)
	if err != nil {
		return nil, err
	}
	keep := false
	defer func() {
		if r := recover(); r != nil {
			keep = false
			err = abi.Errorf(abi.ProviderCrashed, "%s: %v", call.Tool, r)
		}
		p.put(inst, keep)
	}()
	var v any
	v, err, keep = inst.call(ctx, call, env)
	return v, err
}

func (p *wtProvider) get(ctx context.Context, call *abi.ToolCall) (*wtInstance, error) {
	free, overflow, err := p.pool.acquire(ctx, call, nestKey{p.shim}, p.reg.Provider.ID)
	if err != nil {
		return nil, err
	}
	inst := p.pool.take()
	if inst == nil {
		var err error
		if inst, err = p.newInstance(ctx, callDeadline(ctx, call, p.l.cfg.DefaultDeadline)); err != nil {
			if !free {
				p.pool.ReleaseUnit(overflow)
			}
			if p.closed.Load() {
				// As on wazero: named by its id, as to a call after
				// Close (TestWaiterOnClosedProviderTold).
				return nil, abi.Errorf(abi.Unavailable, "wasm provider %s is closed", p.reg.Provider.ID)
			}
			return nil, newInstanceError(call.Tool, err)
		}
	}
	inst.overflow, inst.free = overflow, free
	return inst, nil
}

func (p *wtProvider) put(inst *wtInstance, keep bool) {
	// As on wazero (Provider.put): an instance whose memory has grown past
	// three quarters of the limit is not reused (a Go guest's heap that is
	// never given back would run out in a later call).
	if keep && inst.mem != nil && uintptr(len(wtMemData(inst.store, inst.mem))) > uintptr(p.pages)*65536/4*3 {
		keep = false
	}
	overflow, free := inst.overflow, inst.free
	if keep {
		inst.used.Store(true)
	}
	kept := keep && !p.closed.Load() && p.pool.give(inst)
	if !free {
		p.pool.ReleaseUnit(overflow)
	}
	if !kept {
		p.closeInstance(inst)
		return
	}
	if p.closed.Load() && p.pool.remove(inst) {
		p.closeInstance(inst)
	}
}

func (p *wtProvider) closeInstance(inst *wtInstance) {
	inst.store.Close()
	inst.unwatch()
	p.instanceGone()
}

// instanceGone counts an instance closed; the last one of a closed
// provider releases its module and linker.
func (p *wtProvider) instanceGone() {
	p.mu.Lock()
	p.live--
	p.mu.Unlock()
	if p.closed.Load() {
		p.release()
	}
}

// release deletes the provider's linker and module once it is closed and
// no instance is left. They are not left to finalizers: the linker's host
// functions are Go closures over the provider, which wasmtime-go keeps in
// a global table until the linker is deleted, so the provider, its linker
// and its module (compiled code, a memfd memory image) stayed reachable
// for ever — every load of a module that was later closed (a hot reload,
// a removed plugin) leaked them.
func (p *wtProvider) release() {
	p.mu.Lock()
	if p.live > 0 || p.released {
		p.mu.Unlock()
		return
	}
	p.released = true
	p.mu.Unlock()
	if p.linker != nil {
		p.linker.Close()
	}
	p.module.Close()
}

// trim closes instances idle longer than IdleTimeout, keeping MinIdle, as
// Provider.trim does on wazero.
func (p *wtProvider) trim(now time.Time) {
	trimIdle(p.pool, now, p.l.cfg.MinIdle, p.l.cfg.IdleTimeout, p.closeInstance)
}

// KeepsDeadlines implements abi.DeadlineKeeper, as on wazero: the epoch
// callback stops a guest at most DeadlineGranularity after its deadline
// (or its caller's cancel), a WASI sleep ends at the deadline, waiting for
// a free instance ends at the deadline, host calls run under the call's
// deadline, and so does a new instance's start (and under load_timeout).
// The host then calls it on the caller's goroutine, without a watcher.
func (p *wtProvider) KeepsDeadlines() bool { return true }

// PoolStats implements host.PoolStats (the aios_provider_pool metric):
// the idle instances and those serving calls.
func (p *wtProvider) PoolStats() (idle, busy int) { return p.pool.stats() }

// Close implements abi.Provider: idle instances close now, busy ones when
// their call ends.
func (p *wtProvider) Close() error {
	if !p.closed.CompareAndSwap(false, true) {
		return nil
	}
	p.l.provMu.Lock()
	delete(p.l.provs, p)
	p.l.provMu.Unlock()
	// The calls waiting for a busy instance are told now.
	p.pool.Close(abi.Errorf(abi.Unavailable, "wasm provider %s is closed", p.reg.Provider.ID))
	for _, inst := range p.pool.drain() {
		p.closeInstance(inst)
	}
	p.release() // now, or when the last busy instance closes
	p.out.close()
	return nil
}

// Warm makes sure at least n instances (at most pool_size) are open; see
// Provider.Warm.
func (p *wtProvider) Warm(ctx context.Context, n int) error {
	// Counted as a call: Close keeps the epoch ticker for it.
	if err := p.l.enter(); err != nil {
		return err
	}
	defer p.l.leave()
	var got []*wtInstance
	defer func() {
		for _, inst := range got {
			p.put(inst, true)
		}
	}()
	for range min(n, p.poolSize) {
		inst, err := p.get(ctx, &abi.ToolCall{Tool: "warm"})
		if err != nil {
			return err
		}
		got = append(got, inst)
	}
	return nil
}

// Instances reports the open instances (for tests).
func (p *wtProvider) Instances() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live
}
