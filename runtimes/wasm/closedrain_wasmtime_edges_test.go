//go:build wasmtime

package wasm

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// WasmtimeLoader.Close refused calls but not Warm, which made instances
// (running their start functions and _initialize) after Close had
// stopped the epoch ticker: no deadline held for them. Warm is now
// counted and refused as a call is, as the wazero Provider.Warm is.
func TestWasmtimeWarmAfterClose(t *testing.T) {
	l, err := NewWasmtimeLoader(Options{Config: Config{CacheDir: t.TempDir(), PoolSize: 2}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.Load(context.Background(), abi.Source{Path: buildWAT(t, basicWAT("org.test.wtwarm", 2))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := p.(*wtProvider).Warm(ctx, 2); abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("Warm after the loader closed: %v, want Unavailable", err)
	}
}
