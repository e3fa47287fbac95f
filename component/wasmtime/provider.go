//go:build wasmtime

package wasmtime

/*
#include "capi.h"
extern wasmtime_error_t *aios_add_func(wasmtime_component_linker_instance_t *li, const char *name, size_t n, uintptr_t id);
extern wasmtime_store_t *aios_store_new(wasm_engine_t *e, uintptr_t data);
extern wasm_engine_t *aios_engine_new(bool fuel);
extern wasi_config_t *aios_wasi_config_new(uintptr_t data);
*/
import "C"

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime/cgo"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component"
	"github.com/aios-host/aios-host/internal/busy"
	"github.com/aios-host/aios-host/internal/guestcheck"
	"github.com/aios-host/aios-host/internal/sealed"
	iwire "github.com/aios-host/aios-host/internal/wire"
	"github.com/aios-host/aios-host/runtimes/wasm"
	"github.com/aios-host/aios-host/runtimes/wasm/instrument"
	"github.com/aios-host/aios-host/wit"
)

var bytesType = &wit.Type{Kind: wit.KindList, Elem: wit.Primitive(wit.KindU8)}

// Options configure the wasmtime component loader. The zero value is usable.
type Options struct {
	// Logger receives load-time messages.
	Logger *slog.Logger
	// PoolSize bounds the instances of one provider serving calls at once,
	// and the idle ones kept for reuse (default 4), as on wazero
	// (component.Options.PoolSize).
	PoolSize int
	// MemoryLimitPages caps each linear memory of an instance (64 KiB
	// pages; default 4096 = 256 MiB); an instance has at most four
	// (maxMemories).
	MemoryLimitPages uint32
	// ProviderLimits, if set, gives the memory limit, pool size and the
	// config key that set the pool size for the component loaded from src
	// (runtimes.wasm.providers.<id or stem> over the loader-wide values:
	// wasm.Config.LimitsFor), in place of MemoryLimitPages and PoolSize,
	// as on wazero (component.Options.ProviderLimits).
	ProviderLimits func(src abi.Source) (pages uint32, poolSize int, poolKey string)
	// CacheDir, if set, keeps compiled components (wasmtime's serialized
	// form) keyed by the SHA-256 of the binary. It must be private to the
	// host: a serialized component is trusted native code.
	CacheDir string
	// EpochInterval is the deadline granularity (default 2ms): a guest is
	// interrupted at most about this long after its deadline.
	EpochInterval time.Duration
	// DefaultDeadline applies to a call without one (default 30s).
	DefaultDeadline time.Duration
	// LoadTimeout bounds the start code of the instance a load makes
	// (runtimes.wasm.load_timeout; default 10s), as on wazero
	// (component.Options.LoadTimeout).
	LoadTimeout time.Duration
	// AllowFlagResults loads a component a tool of which returns a flags
	// value (FlagResultsError): only for components known to set no bit
	// past their flags' labels, as wasmtime v39 aborts the process on one.
	AllowFlagResults bool
	// RealClock and RealRandom give every provider the host's clocks and
	// random source (runtimes.wasm.clock, random: real); otherwise a
	// provider has them when it asks for Clock / Random and is granted
	// them, and fake ones if not, as on wazero (component.Options).
	RealClock, RealRandom bool
}

// FlagResultsError refuses a component a tool of which returns a flags
// type of fewer than 32 labels (inside any record, list, variant, option,
// result or tuple of its result): wasmtime v39 lifts such a value in Rust
// and, on a bit set past the labels — which the component model says to
// ignore, and wazero ignores — panics across the C API, which aborts the
// whole host process (SIGABRT), every provider with it. The host loads
// such a component on wazero instead (cmd/aios-host).
type FlagResultsError struct {
	Name, Tool, Type string
	Labels           int
}

func (e *FlagResultsError) Error() string {
	return fmt.Sprintf("component %s: tool %s returns flags %s (%d labels): wasmtime v39 aborts the process on a flags value with a bit set past its labels, so this component runs on wazero", e.Name, e.Tool, e.Type, e.Labels)
}

// flagResults finds the first tool of plan whose result holds a flags
// type wasmtime could be given bits past the labels of.
func flagResults(plan *component.EnginePlan) (tool string, flags *wit.Type) {
	seen := map[*wit.Type]bool{}
	var find func(t *wit.Type) *wit.Type
	find = func(t *wit.Type) *wit.Type {
		if t == nil || seen[t] {
			return nil
		}
		seen[t] = true
		switch t.Kind {
		case wit.KindFlags:
			if n := len(t.Names); n > 0 && n < 32 {
				return t
			}
			return nil
		case wit.KindFuture, wit.KindStream, wit.KindOwn, wit.KindBorrow:
			return nil // (no flags value of them is lifted with the result)
		}
		kids := []*wit.Type{t.Elem, t.Key, t.Ok, t.Err}
		kids = append(kids, t.Tuple...)
		for _, f := range t.Fields {
			kids = append(kids, f.Type)
		}
		for _, c := range t.Cases {
			kids = append(kids, c.Type)
		}
		for _, k := range kids {
			if f := find(k); f != nil {
				return f
			}
		}
		return nil
	}
	for _, t := range plan.Tools {
		if t.WIT == nil {
			continue
		}
		if f := find(t.WIT.Result); f != nil {
			return t.Def.Name, f
		}
	}
	return "", nil
}

// Loader loads .wasm components on one wasmtime engine. Close it after the
// providers it loaded.
type Loader struct {
	opts   Options
	engine *C.wasm_engine_t
	epoch  uint64 // atomic: ticks since the engine started
	stop   chan struct{}
	done   chan struct{}
	// drain counts the loads and calls in progress and refuses new ones
	// once Close has begun: Close keeps the epoch ticker for those in
	// progress.
	drain wasm.Drain
	// clock is the monotonic clock's proxy (clock.go).
	clock clockProxy
}

// NewLoader makes an engine with epoch interruption and starts its epoch
// ticker.
func NewLoader(opts Options) *Loader {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.PoolSize <= 0 {
		opts.PoolSize = 4
	}
	if opts.MemoryLimitPages == 0 || opts.MemoryLimitPages > 65536 {
		opts.MemoryLimitPages = 4096
	}
	if opts.EpochInterval <= 0 {
		opts.EpochInterval = 2 * time.Millisecond
	}
	if opts.DefaultDeadline <= 0 {
		opts.DefaultDeadline = 30 * time.Second
	}
	if opts.LoadTimeout <= 0 {
		opts.LoadTimeout = loadStartTimeout
	}
	l := &Loader{opts: opts, engine: C.aios_engine_new(false), stop: make(chan struct{}), done: make(chan struct{})}
	l.initClock()
	go l.tick()
	return l
}

func (l *Loader) tick() {
	defer close(l.done)
	t := time.NewTicker(l.opts.EpochInterval)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
			C.wasmtime_engine_increment_epoch(l.engine)
			atomic.AddUint64(&l.epoch, 1)
		}
	}
}

// closeDrainWait bounds how long Close waits for the calls in progress.
const closeDrainWait = 5 * time.Second

// Close refuses new loads and calls (Unavailable), waits for those in
// progress to end — at most 5 s; the epoch ticker keeps their deadlines
// meanwhile — and then stops the ticker and drops the loader's handle on
// the engine (wasmtime reference-counts it: stores, linkers and
// components still alive keep it). When calls are still running after
// 5 s, Close says so in its error and the ticker stops only once they
// have ended. Close its providers first. Close is idempotent; later
// calls return the first one's error.
func (l *Loader) Close() error {
	return l.drain.Close("wasmtime component loader", closeDrainWait, l.release)
}

// release stops the epoch ticker and drops the engine handle.
func (l *Loader) release() {
	close(l.stop)
	<-l.done
	l.clock.free()
	C.wasm_engine_delete(l.engine)
}

// enter counts a load or call in progress; it fails once Close has begun.
// Call leave when enter succeeded.
func (l *Loader) enter() error { return l.drain.Enter("wasmtime component loader") }

func (l *Loader) leave() { l.drain.Leave() }

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
	return l.LoadBytes(ctx, src, b)
}

type tool struct {
	component.EngineTool
	ifaceIdx, fnIdx *C.wasmtime_component_export_index_t
}

// Provider is a component loaded on wasmtime.
type Provider struct {
	lines  *component.LineGate // its guests' log lines (component.LinesPerSecond)
	l      *Loader
	name   string
	reg    abi.ToolRegister
	tools  map[string]*tool
	order  []*tool
	comp   *C.wasmtime_component_t
	linker *C.wasmtime_component_linker_t
	pool   chan *instance
	bound  *busy.Bound // instances serving calls at once (Options.PoolSize)
	// memoryPages caps each memory of an instance; poolKey is the config
	// key that set the bound (Options.ProviderLimits).
	memoryPages uint32
	poolKey     string
	mu          sync.Mutex
	// waits: the component imports wasi:io/poll, so its guest can wait
	// in native code that no cancel stops (KeepsDeadlines).
	waits bool
	// realClock, realRandom: the WASI clocks and random source are the
	// host's (clock.go); else fake ones, per instance.
	realClock, realRandom bool
	live                  int  // instances made or being made, not yet freed (under mu)
	closed                bool // (under mu)
	freed                 bool // component, linker and export indices freed (under mu)
}

var _ abi.Provider = (*Provider)(nil)

// LoadBytes loads the component in b; src.Path names it.
func (l *Loader) LoadBytes(ctx context.Context, src abi.Source, b []byte) (_ abi.Provider, err error) {
	name := src.Path
	if err := l.enter(); err != nil {
		return nil, fmt.Errorf("component %s: %w", name, err)
	}
	defer l.leave()
	if l.clock.err != nil {
		return nil, fmt.Errorf("component %s: wasmtime: %w", name, l.clock.err)
	}
	plan, err := component.PlanForEngine(b, name, src.ProviderID)
	if err != nil {
		return nil, err
	}
	if len(plan.Tools) == 0 {
		return nil, fmt.Errorf("component %s: exports no functions, so it offers no tools", name)
	}
	if !l.opts.AllowFlagResults {
		if tool, f := flagResults(plan); f != nil {
			typ := f.Name
			if typ == "" {
				typ = "{" + strings.Join(f.Names, ", ") + "}"
			}
			return nil, &FlagResultsError{Name: name, Tool: tool, Type: typ, Labels: len(f.Names)}
		}
	}
	pages, poolSize, poolKey := l.opts.MemoryLimitPages, l.opts.PoolSize, "runtimes.wasm.pool_size"
	if l.opts.ProviderLimits != nil {
		pages, poolSize, poolKey = l.opts.ProviderLimits(src)
		if pages == 0 || pages > 65536 {
			pages = l.opts.MemoryLimitPages
		}
		if poolSize <= 0 {
			poolSize = l.opts.PoolSize
		}
	}
	for k, m := range plan.CoreModules {
		if m == nil {
			continue
		}
		if err := wasm.CheckMemoryMin(fmt.Sprintf("component %s: core module of instance %d", name, k), m, pages, src); err != nil {
			return nil, err
		}
	}
	p := &Provider{l: l, lines: component.NewLineGate(), name: name, reg: plan.Register, tools: map[string]*tool{}, pool: make(chan *instance, poolSize), bound: busy.New(poolSize),
		memoryPages: pages, poolKey: poolKey}
	p.reg.Provider.Runtime = abi.RuntimeComponent
	// Real clocks and randomness: by config, or asked for and granted
	// (the grants the host will give it), as on wazero; decided before
	// the first instance, whose start code may read them.
	asks, _ := abi.ParseGrants(p.reg.Provider.Capabilities)
	c, r := src.RealClockRandom(p.reg.Provider.ID, asks)
	p.realClock, p.realRandom = l.opts.RealClock || c, l.opts.RealRandom || r
	for _, im := range plan.Imports {
		if im == pollIface || strings.HasPrefix(im, pollIface+"@") {
			p.waits = true
		}
	}
	defer func() {
		if err != nil {
			p.free()
		}
	}()
	if p.comp, err = l.compile(b); err != nil {
		return nil, fmt.Errorf("component %s: wasmtime: %w", name, err)
	}
	for _, et := range plan.Tools {
		t := &tool{EngineTool: et}
		if et.Interface != "" {
			if t.ifaceIdx = exportIndex(p.comp, nil, et.Interface); t.ifaceIdx == nil {
				return nil, fmt.Errorf("component %s: wasmtime finds no exported instance %q", name, et.Interface)
			}
		}
		if t.fnIdx = exportIndex(p.comp, t.ifaceIdx, et.Func); t.fnIdx == nil {
			return nil, fmt.Errorf("component %s: wasmtime finds no exported function %q in %q", name, et.Func, et.Interface)
		}
		p.tools[et.Def.Name] = t
		p.order = append(p.order, t)
	}
	if p.linker, err = newLinker(l.engine); err != nil {
		return nil, fmt.Errorf("component %s: linker: %w", name, err)
	}
	// Instantiate once now, so a broken component (a missing import, a trap
	// in its start code) fails at load.
	p.live++
	dl := time.Now().Add(l.opts.LoadTimeout)
	inst, err := p.newInstance(ctx, dl)
	if err != nil {
		p.live--
		if d, ok := ctx.Deadline(); errors.Is(err, errStartDeadline) && (!ok || !d.Before(dl)) {
			// In wazero's words (component.New), naming the key.
			return nil, fmt.Errorf("component %s: instantiate: the start functions did not finish within runtimes.wasm.load_timeout (%v); the guest was interrupted", name, l.opts.LoadTimeout)
		}
		return nil, fmt.Errorf("component %s: instantiate on wasmtime: %w", name, err)
	}
	p.put(inst)
	return p, nil
}

func exportIndex(c *C.wasmtime_component_t, parent *C.wasmtime_component_export_index_t, name string) *C.wasmtime_component_export_index_t {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return C.wasmtime_component_get_export_index(c, parent, cs, C.size_t(len(name)))
}

// compile compiles b, or loads it from the cache directory.
func (l *Loader) compile(b []byte) (*C.wasmtime_component_t, error) {
	if len(b) == 0 {
		return nil, errors.New("empty binary")
	}
	var cachePath string
	var key []byte // the source's digest: the seal ties an entry to it
	if l.opts.CacheDir != "" {
		sum := sha256.Sum256(b)
		key = sum[:]
		// Sealed (internal/sealed): wasmtime checks a serialized
		// component's header, not its code, and a corrupted code byte
		// would run.
		cachePath = filepath.Join(l.opts.CacheDir, "wasmtime-v39-sealed-"+hex.EncodeToString(sum[:])+".cwasm")
		data, err := sealed.ReadFile(cachePath, key)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			l.opts.Logger.Warn("wasmtime component cache entry unusable; recompiling", "file", cachePath, "error", err)
		}
		if err == nil && len(data) > 0 {
			var c *C.wasmtime_component_t
			cd := C.CBytes(data)
			err := takeError(C.wasmtime_component_deserialize(l.engine, (*C.uint8_t)(cd), C.size_t(len(data)), &c))
			C.free(cd)
			if err == nil {
				return c, nil
			}
			l.opts.Logger.Warn("wasmtime component cache entry unusable; recompiling", "file", cachePath, "error", err)
		}
	}
	var c *C.wasmtime_component_t
	cb := C.CBytes(b)
	err := takeError(C.wasmtime_component_new(l.engine, (*C.uint8_t)(cb), C.size_t(len(b)), &c))
	C.free(cb)
	if err != nil {
		return nil, errors.New(wasm.WasmtimeErrorText(err.Error()))
	}
	if cachePath != "" {
		var out C.wasm_byte_vec_t
		if err := takeError(C.wasmtime_component_serialize(c, &out)); err == nil {
			data := C.GoBytes(unsafe.Pointer(out.data), C.int(out.size))
			C.wasm_byte_vec_delete(&out)
			if sealed.WriteFile(cachePath, data, key) == nil {
				// Bounded while the host runs, not only at its start.
				wasm.NoteCompiled(l.opts.CacheDir, l.opts.Logger)
			}
		}
	}
	return c, nil
}

// newLinker defines WASI 0.2 (wasmtime's, deny-by-default: no preopens,
// no inherited stdio, environment or arguments) and the aios:sdk interfaces.
func newLinker(engine *C.wasm_engine_t) (*C.wasmtime_component_linker_t, error) {
	lk := C.wasmtime_component_linker_new(engine)
	if err := takeError(C.wasmtime_component_linker_add_wasip2(lk)); err != nil {
		C.wasmtime_component_linker_delete(lk)
		return nil, fmt.Errorf("WASI 0.2: %w", err)
	}
	if err := addClock(lk); err != nil {
		C.wasmtime_component_linker_delete(lk)
		return nil, fmt.Errorf("WASI 0.2: %w", err)
	}
	for _, iface := range sdkInterfaces {
		root := C.wasmtime_component_linker_root(lk)
		var li *C.wasmtime_component_linker_instance_t
		cs := C.CString(iface.name)
		err := takeError(C.wasmtime_component_linker_instance_add_instance(root, cs, C.size_t(len(iface.name)), &li))
		C.free(unsafe.Pointer(cs))
		if err == nil {
			for _, f := range iface.funcs {
				fs := C.CString(f.name)
				err = takeError(C.aios_add_func(li, fs, C.size_t(len(f.name)), C.uintptr_t(f.id)))
				C.free(unsafe.Pointer(fs))
				if err != nil {
					err = fmt.Errorf("%s#%s: %w", iface.name, f.name, err)
					break
				}
			}
			C.wasmtime_component_linker_instance_delete(li)
		}
		C.wasmtime_component_linker_instance_delete(root)
		if err != nil {
			C.wasmtime_component_linker_delete(lk)
			return nil, fmt.Errorf("aios:sdk: %w", err)
		}
	}
	return lk, nil
}

// maxTables bounds the tables of one component instance's store: a
// component has a table or two per core module (wasm-tools' shims add a
// few); with MaxTableElements each that is at most 512 MiB of function
// references.
const maxTables = 64

// maxMemories bounds the linear memories of one component instance's
// store: a component has one (its main module's) or two (an adapter's);
// an instance's memory is at most maxMemories × MemoryLimitPages.
const maxMemories = 4

// instance is one store holding one component instance.
type instance struct {
	p      *Provider
	handle cgo.Handle
	store  *C.wasmtime_store_t
	cx     *C.wasmtime_context_t
	ci     C.wasmtime_component_instance_t
	funcs  []C.wasmtime_component_func_t // per tool, in p.order
	state  *callState
	broken bool
	// dl is the running guest code's deadline, cancelled set when the
	// epoch callback stopped it for its caller (epoch.go).
	dl        time.Time
	cancelled bool
	// clock holds wasmtime's monotonic-clock functions (clock.go);
	// clockEnd is when the last of the clock pollables it made ends.
	clock    [len(clockFuncs)]C.wasmtime_component_func_t
	clockEnd time.Time
	// src are its clocks and random source (sources.go).
	src component.Sources
	// startCtx is the context of the code that makes the instance while
	// its start code runs (newInstance): the epoch callback stops it when
	// that ends, as it stops a call's guest code when state.ctx does.
	startCtx context.Context
}

// loadStartTimeout is Options.LoadTimeout's default.
const loadStartTimeout = 10 * time.Second

// errStartDeadline: a new instance's start code ran past its deadline.
var errStartDeadline = errors.New("its start code did not finish by the deadline and was interrupted")

// newInstance instantiates the component; its start code runs until dl,
// or until ctx ends (its caller cancelled).
func (p *Provider) newInstance(ctx context.Context, dl time.Time) (_ *instance, err error) {
	inst := &instance{p: p}
	inst.handle = cgo.NewHandle(inst)
	inst.store = C.aios_store_new(p.l.engine, C.uintptr_t(inst.handle))
	inst.cx = C.wasmtime_store_context(inst.store)
	defer func() {
		if err != nil {
			inst.free()
		}
	}()
	mem := p.memBytes()
	// Each linear memory grows to memoryPages at most and a store
	// holds at most maxMemories of them (wasmtime's limiter bounds each
	// memory, not their sum). Tables are host memory too: each grows to
	// instrument.MaxTableElements at most, as a core module's do (a
	// component cannot be rewritten to bound their sum), and a store holds
	// at most maxTables of them.
	C.wasmtime_store_limiter(inst.store, C.int64_t(mem), C.int64_t(instrument.MaxTableElements), -1, C.int64_t(maxTables), C.int64_t(maxMemories))
	// stdout and stderr into the call's log (output.go), as on wazero.
	if err := takeError(C.wasmtime_context_set_wasi(inst.cx, C.aios_wasi_config_new(C.uintptr_t(inst.handle)))); err != nil {
		return nil, fmt.Errorf("WASI context: %w", err)
	}
	if err := inst.startClock(); err != nil {
		return nil, err
	}
	// Start code runs until dl: the load's, or the call's that needs
	// this instance (docs/components.md, as on wazero).
	if d, ok := ctx.Deadline(); ok && d.Before(dl) {
		dl = d // a load's context ending before loadStartTimeout
	}
	inst.setDeadline(dl)
	inst.startCtx = ctx
	err = takeError(C.wasmtime_component_linker_instantiate(p.linker, inst.cx, p.comp, &inst.ci))
	inst.startCtx = nil
	if err != nil {
		if inst.cancelled {
			return nil, errStartCancelled
		}
		if !time.Now().Before(dl) {
			return nil, errStartDeadline
		}
		return nil, errors.New(trapReason(err.Error())) // one line, as wazero's
	}
	inst.funcs = make([]C.wasmtime_component_func_t, len(p.order))
	for i, t := range p.order {
		if !C.wasmtime_component_instance_get_func(&inst.ci, inst.cx, t.fnIdx, &inst.funcs[i]) {
			return nil, fmt.Errorf("export %s is not a function", t.Def.Name)
		}
	}
	return inst, nil
}

func (inst *instance) free() {
	if inst.store != nil {
		C.wasmtime_store_delete(inst.store)
		inst.store = nil
	}
	inst.handle.Delete()
}

// ticks converts a duration into epoch ticks beyond the current one.
func (l *Loader) ticks(d time.Duration) uint64 {
	if d <= 0 {
		return 1
	}
	return uint64(d/l.opts.EpochInterval) + 1
}

// errStartCancelled: the caller of the code making an instance cancelled
// while its start code ran.
var errStartCancelled = errors.New("its start code was interrupted: the caller cancelled")

// get takes an idle instance or makes one whose start code runs until dl,
// or until ctx ends.
func (p *Provider) get(ctx context.Context, dl time.Time) (*instance, error) {
	for {
		var inst *instance
		select {
		case inst = <-p.pool:
		default:
		}
		if inst == nil {
			break
		}
		// A clock pollable ends at the deadline of the call that made
		// it (clock.go); the guest may have kept one and wait on it in
		// this call, in native code the epoch callback cannot stop: an
		// instance that holds one ending after dl does not serve it.
		if inst.clockEnd.After(dl) {
			p.release(inst)
			continue
		}
		return inst, nil
	}
	// Counted live before newInstance uses the component and linker: the
	// last busy instance of a closed provider frees them (release), and
	// did so under an instance being made after the closed check (a use
	// after free that killed the process).
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, abi.Errorf(abi.Unavailable, "component provider %s is closed", p.reg.Provider.ID)
	}
	p.live++
	p.mu.Unlock()
	inst, err := p.newInstance(ctx, dl)
	if err != nil {
		p.gone()
		return nil, err
	}
	return inst, nil
}

func (p *Provider) put(inst *instance) {
	// Pooled under mu: Close, which drains the pool after it sets closed,
	// finds it there (an instance pooled after the drain was never closed,
	// nor the component freed).
	p.mu.Lock()
	if !inst.broken && !p.closed {
		select {
		case p.pool <- inst:
			p.mu.Unlock()
			return
		default:
		}
	}
	p.mu.Unlock()
	p.release(inst)
}

func (p *Provider) release(inst *instance) {
	inst.free()
	p.gone()
}

// gone counts an instance closed (or one that failed to start); the last
// one of a closed provider frees the component.
func (p *Provider) gone() {
	p.mu.Lock()
	p.live--
	p.mu.Unlock()
	p.freeIfDone()
}

// freeIfDone frees the component once p is closed and no instance is left,
// once: Close and the last busy instance both get here.
func (p *Provider) freeIfDone() {
	p.mu.Lock()
	last := p.closed && p.live == 0 && !p.freed
	if last {
		p.freed = true
	}
	p.mu.Unlock()
	if last {
		p.free()
	}
}

// Describe implements abi.Provider.
func (p *Provider) Describe() *abi.ToolRegister { return &p.reg }

// pollIface is WASI's poll interface (unversioned): its pollable.block
// and poll are the only WASI functions that wait (clock.go).
const pollIface = "wasi:io/poll"

var _ abi.DeadlineKeeper = (*Provider)(nil)

// KeepsDeadlines implements abi.DeadlineKeeper, for a component that does
// not import wasi:io/poll: the epoch callback stops its guest at its
// deadline or its caller's cancel (a new instance's start code too),
// waiting for a busy instance ends at the deadline or the cancel, and host
// calls run under the caller's context; its guest cannot wait in WASI
// (without pollable.block or poll, no WASI function it can reach waits:
// clock.go). The host then calls it on the caller's goroutine, without a
// watcher goroutine and timer. A component that imports wasi:io/poll can
// sleep in wasmtime's native code, which ends at the deadline (clock.go)
// but not at a cancel; the host keeps watching it, and so answers a
// cancel at once.
func (p *Provider) KeepsDeadlines() bool { return !p.waits }

// PoolStats implements host.PoolStats (the aios_provider_pool metric):
// the idle instances and those serving calls.
func (p *Provider) PoolStats() (idle, busy int) { return len(p.pool), p.bound.Busy() }

// Close implements abi.Provider: idle instances go now, busy ones when their
// call ends, the compiled component with the last one.
func (p *Provider) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	// The calls waiting for a busy instance are told now.
	p.bound.Close(abi.Errorf(abi.Unavailable, "component provider %s is closed", p.reg.Provider.ID))
	for {
		select {
		case inst := <-p.pool:
			p.release(inst)
			continue
		default:
		}
		break
	}
	p.freeIfDone()
	return nil
}

func (p *Provider) free() {
	for _, t := range p.order {
		if t.fnIdx != nil {
			C.wasmtime_component_export_index_delete(t.fnIdx)
			t.fnIdx = nil
		}
		if t.ifaceIdx != nil {
			C.wasmtime_component_export_index_delete(t.ifaceIdx)
			t.ifaceIdx = nil
		}
	}
	if p.linker != nil {
		C.wasmtime_component_linker_delete(p.linker)
		p.linker = nil
	}
	if p.comp != nil {
		C.wasmtime_component_delete(p.comp)
		p.comp = nil
	}
}

// nestKey marks a context as coming from a host call of p's guest: a call
// back into p from it does not wait for a busy instance (busy.Bound).
type nestKey struct{ p *Provider }

// Call implements abi.Provider.
func (p *Provider) Call(ctx context.Context, call *abi.ToolCall, env abi.Env) (_ any, err error) {
	if call == nil {
		return nil, abi.NilCall(p)
	}
	if err := p.l.enter(); err != nil {
		return nil, err
	}
	defer p.l.leave()
	t, ok := p.tools[call.Tool]
	if !ok {
		return nil, abi.Errorf(abi.NotFound, "component %s has no tool %q", p.reg.Provider.ID, call.Tool)
	}
	args, err := params(t, call.Params)
	if err != nil {
		return nil, err
	}
	deadline, has := ctx.Deadline()
	if !call.Deadline.IsZero() && (!has || call.Deadline.Before(deadline)) {
		deadline, has = call.Deadline, true
	}
	if !has {
		deadline = time.Now().Add(p.l.opts.DefaultDeadline)
	}
	nv := ctx.Value(nestKey{p})
	chain, _ := nv.(*busy.Chain)
	free, overflow, err := p.bound.AcquireIn(ctx, deadline, call.Depth > 0 && nv != nil, chain, p.reg.Provider.ID, call.Tool, p.poolKey)
	if err != nil {
		return nil, err
	}
	if !free {
		defer p.bound.ReleaseUnit(overflow) // after the instance is back in the pool (defers run last first)
	}
	inst, err := p.get(ctx, deadline)
	if err != nil {
		var te *abi.ToolError
		if errors.As(err, &te) {
			return nil, te // closed
		}
		// In the words of the wazero component runtime (component/call.go).
		if errors.Is(err, errStartCancelled) {
			return nil, abi.Errorf(abi.Cancelled, "component %s: the caller cancelled while a new instance was starting", p.reg.Provider.ID)
		}
		if !time.Now().Before(deadline) {
			return nil, abi.Errorf(abi.Timeout, "component %s: the deadline passed while a new instance was starting: %v", p.reg.Provider.ID, err)
		}
		return nil, abi.Errorf(abi.Unavailable, "component %s: new instance: %v", p.reg.Provider.ID, err)
	}
	st := &callState{ctx: ctx, env: env, p: p, deadline: deadline, out: component.GuestOutput{Gate: p.lines}}
	inst.state = st
	defer func() {
		if r := recover(); r != nil {
			inst.broken = true
			err = abi.Errorf(abi.ProviderCrashed, "tool %s: %v", call.Tool, r)
		}
		st.flushOutput()
		inst.state = nil
		p.put(inst)
	}()
	v, err := inst.invoke(t, args, deadline)
	if err != nil {
		return nil, err
	}
	return result(t, v, st)
}

// invoke lowers the arguments, calls the export under the deadline, lifts
// the result and runs post-return.
func (inst *instance) invoke(t *tool, args []wit.Value, deadline time.Time) (wit.Value, error) {
	f := t.WIT
	idx := -1
	for i, o := range inst.p.order {
		if o == t {
			idx = i
		}
	}
	na, nr := len(f.Params), 0
	if f.Result != nil {
		nr = 1
	}
	cargs := allocVals(na)
	defer freeVals(cargs, na)
	ca := valsSlice(cargs, na)
	for i, prm := range f.Params {
		if err := lower(prm.Type, args[i], &ca[i], 0); err != nil {
			return nil, abi.Errorf(abi.InvalidParams, "tool %s: %s: %v", t.Def.Name, prm.Name, err)
		}
	}
	// Zeroed results: wasmtime drops what the slots hold before writing.
	cres := allocVals(nr)
	defer freeVals(cres, nr)
	inst.setDeadline(deadline)
	fn := &inst.funcs[idx]
	if err := takeError(C.wasmtime_component_func_call(fn, inst.cx, cargs, C.size_t(na), cres, C.size_t(nr))); err != nil {
		inst.broken = true
		return nil, inst.fail(t, "", err, deadline)
	}
	var v wit.Value
	if nr == 1 {
		var err error
		if v, err = lift(f.Result, &valsSlice(cres, 1)[0], 0, newLiftBudget()); err != nil {
			inst.broken = true
			return nil, abi.Errorf(abi.ProviderCrashed, "tool %s: result: %v", t.Def.Name, err)
		}
	}
	if err := takeError(C.wasmtime_component_func_post_return(fn, inst.cx)); err != nil {
		inst.broken = true
		return nil, inst.fail(t, "post-return: ", err, deadline)
	}
	// A wait in wasmtime's own WASI 0.2 (pollable.block, poll: a sleep)
	// runs in native code that the epoch callback cannot interrupt; it
	// ends at the deadline (clock.go), not at a cancel, so a guest may
	// return past its deadline or after its caller cancelled: its result
	// is late, as that of a guest the callback stopped.
	var ctx context.Context
	if st := inst.state; st != nil {
		ctx = st.ctx
	}
	while := inst.state.while()
	// Only a component that imports wasi:io/poll can wait so (the
	// message said so of every component).
	switch guestcheck.Check(ctx, deadline) {
	case guestcheck.Cancelled:
		if inst.p.waits {
			return nil, abi.Errorf(abi.Cancelled, "tool %s: the caller cancelled%s; the component returned later (a wait in WASI, such as a sleep, is not cut short by a cancel on wasmtime: it ends at the deadline) and its result was dropped", t.Def.Name, while)
		}
		return nil, abi.Errorf(abi.Cancelled, "tool %s: the caller cancelled%s; the component returned later and its result was dropped", t.Def.Name, while)
	case guestcheck.Deadline:
		if inst.p.waits {
			return nil, abi.Errorf(abi.Timeout, "tool %s: deadline passed%s; the component returned later (a wait in WASI, such as a sleep, ends at the deadline on wasmtime) and its result was dropped", t.Def.Name, while)
		}
		return nil, abi.Errorf(abi.Timeout, "tool %s: deadline passed%s; the component returned later and its result was dropped", t.Def.Name, while)
	}
	return v, nil
}

// fail is the error of a failed call of t's export (stage "") or of its
// post-return function (stage "post-return: ").
func (inst *instance) fail(t *tool, stage string, err error, deadline time.Time) error {
	if st := inst.state; st != nil && st.hostErr != nil {
		var te *abi.ToolError
		if errors.As(st.hostErr, &te) {
			return te
		}
		return abi.Errorf(abi.ProviderCrashed, "tool %s: host function failed: %v", t.Def.Name, st.hostErr)
	}
	msg := err.Error()
	// Stopped while it waited in call-tool: the message names that call,
	// in the wazero engine's words (component/call.go).
	while := inst.state.while()
	if inst.cancelled {
		return abi.Errorf(abi.Cancelled, "tool %s: the caller cancelled%s; the component instance was stopped", t.Def.Name, while)
	}
	if !time.Now().Before(deadline) || strings.Contains(msg, "interrupt") {
		return abi.Errorf(abi.Timeout, "tool %s: deadline passed%s; the component instance was stopped", t.Def.Name, while)
	}
	// stage names the post-return function when it trapped, as the
	// wazero engine does: "tool f: wasm error: unreachable" read as if f
	// itself had trapped (TestPostReturnTrapNamedOnWasmtime).
	reason := trapReason(msg)
	if stage == "" && liftFailure(msg) {
		stage = "result: "
		reason = badRange.ReplaceAllString(reason, "$1")
	}
	return abi.Errorf(abi.ProviderCrashed, "tool %s: %s%s", t.Def.Name, stage, reason)
}

// liftFailure tells whether a failed call's error is wasmtime's lift of
// the result the guest returned (a bad discriminant, char, UTF-8 or
// pointer): not a trap in the guest's code, whose message carries a wasm
// backtrace, nor the lowering of the arguments, which fails only on what
// realloc returned ("realloc return: …"). It is named "result: ", as the
// wazero engine names it (TestResultLiftFailureNamed).
func liftFailure(msg string) bool {
	return !strings.Contains(msg, "wasm backtrace") && !strings.Contains(msg, "Caused by:") &&
		!strings.Contains(msg, "wasm trap") && !strings.HasPrefix(msg, "realloc")
}

// badRange is the range wasmtime v39 writes after an out-of-range
// discriminant: always [0..0), whatever the cases.
var badRange = regexp.MustCompile(`(discriminant \d+ out of range) \[0\.\.0\)`)

// trapWords are wasmtime's trap messages in the words the wazero component
// runtime uses for the same trap.
var trapWords = map[string]string{
	"wasm `unreachable` instruction executed":       "wasm error: unreachable",
	"call stack exhausted":                          "stack overflow",
	"out of bounds memory access":                   "wasm error: out of bounds memory access",
	"undefined element: out of bounds table access": "wasm error: invalid table access",
	"uninitialized element":                         "wasm error: invalid table access",
	"indirect call type mismatch":                   "wasm error: indirect call type mismatch",
	"integer overflow":                              "wasm error: integer overflow",
	"integer divide by zero":                        "wasm error: integer divide by zero",
	"invalid conversion to integer":                 "wasm error: invalid conversion to integer",
	"unaligned atomic":                              "wasm error: unaligned atomic",
}

// trapReason is the reason of a failed wasmtime call in one line: a trap
// under "Caused by:" in wazero's words (the message's first line is only
// "error while executing at wasm backtrace:"; a memory fault's trap is
// the second cause, under "memory fault at wasm address …":
// TestMemoryFaultInWazeroWords), else the first line there; else the
// message's first line.
func trapReason(msg string) string {
	if _, cause, ok := strings.Cut(msg, "Caused by:"); ok {
		first := ""
		for _, l := range strings.Split(cause, "\n") {
			l = strings.TrimLeft(strings.TrimSpace(l), "0123456789: ")
			if strings.HasPrefix(l, "Stack backtrace") {
				break // RUST_BACKTRACE's frames
			}
			if l == "" {
				continue
			}
			if w, ok := trapWords[strings.TrimPrefix(l, "wasm trap: ")]; ok {
				return w
			}
			if first == "" {
				first = l
			}
		}
		if first != "" {
			return first
		}
	}
	if i := strings.IndexByte(msg, '\n'); i > 0 {
		msg = msg[:i]
	}
	return msg
}

func params(t *tool, ps any) ([]wit.Value, error) {
	if ps == nil {
		ps = map[string]any{}
	}
	if t.JSONTool {
		b, err := json.Marshal(abi.ForJSON(ps)) // floats stay floats (abi.ForJSON)
		if err != nil {
			return nil, abi.Errorf(abi.InvalidParams, "params: %v", err)
		}
		return []wit.Value{string(b)}, nil
	}
	args, err := wit.FuncParamsFromJSON(t.WIT, ps)
	if err != nil {
		return nil, abi.Errorf(abi.InvalidParams, "tool %s: %v", t.Def.Name, err)
	}
	return args, nil
}

// result maps the return value to the tool's result the way package
// component does: a top-level result<T, E> gives T or a ProviderError.
func result(t *tool, v wit.Value, st *callState) (any, error) {
	if t.JSONTool {
		if r, ok := v.(wit.Result); ok && !r.IsErr {
			var out any
			s, _ := r.Val.(string)
			if err := iwire.UnmarshalGuestJSON([]byte(s), &out); err != nil {
				return nil, abi.Errorf(abi.InvalidResult, "tool %s returned invalid JSON: %v", t.Def.Name, err)
			}
			return out, nil
		}
	}
	res, errData, failed, err := wit.FuncResultToJSON(t.WIT, v)
	if err != nil {
		return nil, abi.Errorf(abi.InvalidResult, "tool %s: %v", t.Def.Name, err)
	}
	if !failed {
		return res, nil
	}
	return nil, component.ToolFailure(t.Def.Name, t.WIT, errData, st.nested)
}

// Instances reports open instances (for tests).
func (p *Provider) Instances() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live
}

// memBytes is the most one linear memory of an instance may grow to, in
// bytes (memoryPages).
func (p *Provider) memBytes() int64 {
	pages := p.memoryPages
	if pages == 0 { // a Provider made without LoadBytes (tests)
		pages = p.l.opts.MemoryLimitPages
	}
	return int64(pages) * 65536
}
