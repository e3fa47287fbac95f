package wasm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/aios-host/aios-host/internal/sealed"
	instr "github.com/aios-host/aios-host/runtimes/wasm/instrument"
	"github.com/aios-host/aios-host/runtimes/wasm/precompile"
)

// Sharing across providers.
//
// A wazero Runtime carries one memory limit, so providers with the same
// limit (and the same interruption mode) share a runtime, with its WASI and
// "aios" host modules. A module loaded twice (the same bytes, e.g. one
// plugin under several provider ids, or a reload) is decoded, validated and
// instrumented once: loading 50 providers then costs 50 instantiations, not
// 50 compilations.

// instrumentedDir is the cache folder of instrumented modules, named for
// the rewrite's version (v2: tables are capped; v3: checks at the entry
// of functions that call functions of the module).
const instrumentedDir = "aios-instrumented-v3"

type rtKey struct {
	pages   uint32
	checks  bool // wazero's own termination checks (module not instrumented)
	nocache bool // compiled code kept in memory only (the file cache failed)
}

type modKey struct {
	sum [32]byte
	rt  rtKey
}

type sharedModule struct {
	key          modKey
	cm           wazero.CompiledModule
	rt           wazero.Runtime
	instrumented bool
	refs         int
}

// runtimeFor returns the shared runtime for k; l.mu is held.
func (l *Loader) runtimeFor(ctx context.Context, k rtKey) (wazero.Runtime, error) {
	if rt, ok := l.rts[k]; ok {
		return rt, nil
	}
	cfg := wazero.NewRuntimeConfig().
		WithMemoryLimitPages(k.pages).
		WithCloseOnContextDone(k.checks)
	if !k.nocache {
		cfg = cfg.WithCompilationCache(l.cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		_ = rt.Close(ctx)
		return nil, fmt.Errorf("WASI: %w", err)
	}
	if err := l.instantiateHostModule(ctx, rt); err != nil {
		_ = rt.Close(ctx)
		return nil, fmt.Errorf("host module: %w", err)
	}
	l.rts[k] = rt
	return rt, nil
}

// module compiles bin (instrumented when possible) or returns the shared
// compiled module; release it with l.release. A module whose compilation
// could be slow is first compiled by a process of its own under
// runtimes.wasm.compile_timeout (package precompile), outside l.mu, so
// that it holds neither this load nor the others for longer than that.
func (l *Loader) module(ctx context.Context, name string, bin []byte, pages uint32) (*sharedModule, error) {
	sum := sha256.Sum256(bin)
	if sm := l.shared(sum, pages); sm != nil {
		return sm, nil
	}
	ib, ierr := l.instrumented(sum, bin)
	if errors.Is(ierr, instr.ErrTableLimit) || errors.Is(ierr, instr.ErrReservedExport) {
		return nil, fmt.Errorf("%s: %w", name, ierr)
	}
	if l.noInstrument {
		ierr = errors.New("instrumentation switched off")
	}
	if ierr == nil {
		if ierr = l.precompile(ctx, name, ib, bin, false); ierr == nil {
			sm, err := l.compile(ctx, sum, ib, rtKey{pages: pages})
			if err == nil {
				l.prunePeriodically()
				return sm, nil
			}
			ierr = err
		} else if !errors.As(ierr, new(*precompile.CompileError)) {
			return nil, ierr
		}
	}
	// Run as written, with wazero's checks: its tables are bounded all
	// the same (the rest of the rewrite could not be applied).
	if capped, err := instr.CapTables(bin); errors.Is(err, instr.ErrTableLimit) {
		return nil, fmt.Errorf("%s: %w", name, err)
	} else if err == nil {
		bin = capped
	}
	if err := l.precompile(ctx, name, bin, nil, true); err != nil {
		if ce := (*precompile.CompileError)(nil); errors.As(err, &ce) {
			return nil, fmt.Errorf("%s: invalid WebAssembly module: %s", name, ce.Msg)
		}
		return nil, err
	}
	sm, err := l.compile(ctx, sum, bin, rtKey{pages: pages, checks: true})
	if err != nil {
		return nil, fmt.Errorf("%s: invalid WebAssembly module: %w", name, err)
	}
	l.prunePeriodically()
	if sm.refs == 1 {
		l.logger.Info("wasm: the module cannot be instrumented; interrupting it with wazero's checks (slower calls)", "file", name, "reason", ierr)
	}
	return sm, nil
}

// shared returns the compiled module for sum, with either interruption
// mode, taking a reference, or nil.
func (l *Loader) shared(sum [32]byte, pages uint32) *sharedModule {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, checks := range []bool{false, true} {
		for _, nocache := range []bool{false, true} {
			if sm, ok := l.mods[modKey{sum, rtKey{pages, checks, nocache}}]; ok {
				sm.refs++
				return sm
			}
		}
	}
	return nil
}

// compile compiles code (bin or its instrumented form) on the runtime for
// k, or takes a reference to the module a concurrent load compiled. The
// file cache is an optimisation: when a compilation through it fails and
// the same compilation without it succeeds (the cache could not be read or
// written: a corrupt entry, a full disk, no permission), the loader warns
// once and keeps compiled code in memory for the rest of its life.
func (l *Loader) compile(ctx context.Context, sum [32]byte, code []byte, k rtKey) (*sharedModule, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k.nocache = l.cacheOff
	sm, err := l.compileLocked(ctx, sum, code, k)
	if err == nil || k.nocache || l.cacheDir == "" {
		return sm, err
	}
	k.nocache = true
	sm, err2 := l.compileLocked(ctx, sum, code, k)
	if err2 != nil {
		return nil, err2
	}
	l.cacheOff = true
	l.logger.Warn("wasm: the compile cache cannot be used; compiled code is kept in memory until the host restarts",
		"cache", l.cacheDir, "reason", err)
	return sm, nil
}

// afterCompile, when set (tests), runs between a compilation through the
// file cache and the sealing of its entries.
var afterCompile func()

// compileLocked is compile's work on the runtime for k; l.mu is held.
func (l *Loader) compileLocked(ctx context.Context, sum [32]byte, code []byte, k rtKey) (*sharedModule, error) {
	key := modKey{sum, k}
	if sm, ok := l.mods[key]; ok {
		sm.refs++
		return sm, nil
	}
	rt, err := l.runtimeFor(ctx, k)
	if err != nil {
		return nil, err
	}
	cached := !k.nocache && l.cacheDir != ""
	if cached {
		if err := checkCache(l.cacheDir, l.logger); err != nil {
			return nil, err // compile compiles without the cache
		}
		// Until its entries are sealed, another loader's check (or
		// another host's) must not take them for damaged ones.
		defer sealed.BeginWazero(l.cacheDir)()
	}
	cm, err := rt.CompileModule(ctx, code)
	if err != nil {
		return nil, err
	}
	if cached {
		if afterCompile != nil {
			afterCompile()
		}
		sealed.SealWazero(l.cacheDir)
	}
	sm := &sharedModule{key: key, cm: cm, rt: rt, instrumented: !k.checks, refs: 1}
	l.mods[key] = sm
	l.fresh++
	return sm, nil
}

// prunePeriodically counts the modules compiled since its last call
// (compileLocked counts them under l.mu) towards the cache directory's next
// pruning (noteCompiled): the cache stays bounded while the host runs, not
// only at its next start.
func (l *Loader) prunePeriodically() {
	l.mu.Lock()
	n := l.fresh
	l.fresh = 0
	off := l.cacheOff
	l.mu.Unlock()
	if !off {
		noteCompiled(l.cacheDir, n, l.logger)
	}
}

// precompile runs precompile.Check for code (a rewrite of src, or src
// when that is nil) as the runtime for checks would compile it.
func (l *Loader) precompile(ctx context.Context, name string, code, src []byte, checks bool) error {
	l.mu.Lock()
	dir := l.cacheDir
	if l.cacheOff {
		dir = ""
	}
	l.mu.Unlock()
	if dir != "" && checkCache(dir, l.logger) != nil { // before the compiler process reads an entry
		dir = "" // an entry that must go stays: compile said so, or will
	}
	return precompile.Check(ctx, name, code, precompile.Options{
		CacheDir: dir, CloseOnContextDone: checks, Timeout: l.cfg.CompileTimeout,
		WorkBudget: l.workBudget, Source: src,
	})
}

// release drops a provider's reference to sm.
func (l *Loader) release(sm *sharedModule) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if sm.refs--; sm.refs == 0 {
		delete(l.mods, sm.key)
		_ = sm.cm.Close(context.Background())
	}
}

// instrumented returns the instrumented form of bin, from the cache
// directory when an earlier run wrote it there.
func (l *Loader) instrumented(sum [32]byte, bin []byte) ([]byte, error) {
	var path string
	if l.cacheDir != "" {
		// Sealed with the source's digest (internal/sealed): a damaged or
		// swapped entry is rewritten, not compiled (it used to make the
		// loader fall back to an unrewritten module, tables unbounded).
		path = filepath.Join(l.cacheDir, instrumentedDir, hex.EncodeToString(sum[:])+".wasm")
		if b, err := sealed.ReadFile(path, sum[:]); err == nil {
			return b, nil
		}
	}
	ib, err := instrument(bin)
	if err != nil || path == "" {
		return ib, err
	}
	_ = sealed.WriteFile(path, ib, sum[:]) // a name of its own: concurrent loads of one module may write it
	return ib, nil
}
