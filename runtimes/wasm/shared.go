package wasm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// Sharing across providers.
//
// A wazero Runtime carries one memory limit, so providers with the same
// limit (and the same interruption mode) share a runtime, with its WASI and
// "aios" host modules. A module loaded twice (the same bytes, e.g. one
// plugin under several provider ids, or a reload) is decoded, validated and
// instrumented once: loading 50 providers then costs 50 instantiations, not
// 50 compilations.

type rtKey struct {
	pages  uint32
	checks bool // wazero's own termination checks (module not instrumented)
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
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().
		WithCompilationCache(l.cache).
		WithMemoryLimitPages(k.pages).
		WithCloseOnContextDone(k.checks))
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
// compiled module; release it with l.release.
func (l *Loader) module(ctx context.Context, name string, bin []byte, pages uint32) (*sharedModule, error) {
	sum := sha256.Sum256(bin)
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, checks := range []bool{false, true} {
		if sm, ok := l.mods[modKey{sum, rtKey{pages, checks}}]; ok {
			sm.refs++
			return sm, nil
		}
	}
	ib, ierr := l.instrumented(sum, bin)
	if l.noInstrument {
		ierr = errors.New("instrumentation switched off")
	}
	if ierr == nil {
		k := rtKey{pages, false}
		rt, err := l.runtimeFor(ctx, k)
		if err != nil {
			return nil, err
		}
		cm, err := rt.CompileModule(ctx, ib)
		if err == nil {
			sm := &sharedModule{key: modKey{sum, k}, cm: cm, rt: rt, instrumented: true, refs: 1}
			l.mods[sm.key] = sm
			return sm, nil
		}
		ierr = err
	}
	k := rtKey{pages, true}
	rt, err := l.runtimeFor(ctx, k)
	if err != nil {
		return nil, err
	}
	cm, err := rt.CompileModule(ctx, bin)
	if err != nil {
		return nil, fmt.Errorf("%s: invalid WebAssembly module: %w", name, err)
	}
	l.logger.Info("wasm: the module cannot be instrumented; interrupting it with wazero's checks (slower calls)", "file", name, "reason", ierr)
	sm := &sharedModule{key: modKey{sum, k}, cm: cm, rt: rt, refs: 1}
	l.mods[sm.key] = sm
	return sm, nil
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
		path = filepath.Join(l.cacheDir, "aios-instrumented-v1", hex.EncodeToString(sum[:])+".wasm")
		if b, err := os.ReadFile(path); err == nil {
			return b, nil
		}
	}
	ib, err := instrument(bin)
	if err != nil || path == "" {
		return ib, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
		tmp := path + ".tmp"
		if os.WriteFile(tmp, ib, 0o600) == nil {
			_ = os.Rename(tmp, path)
		}
	}
	return ib, nil
}
