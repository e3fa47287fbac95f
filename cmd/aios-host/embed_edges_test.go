package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// closeHost closed the Python and JS runtimes but not the WASM core
// loader: its watchdog goroutine, wazero runtimes and compile cache
// stayed for the life of the process (each host an embedder or a test
// built and closed leaked them). It now closes it after the host, which
// is safe with calls still in flight: wasm.Loader.Close interrupts them
// and waits for them to leave their guests.
func TestCloseHostClosesWasmLoader(t *testing.T) {
	ctx := context.Background()
	c := &cli{ctx: ctx, stdout: io.Discard, stderr: io.Discard, data: t.TempDir(), plugins: []string{t.TempDir()}}
	h, err := c.newHost(ctx, slog.New(slog.DiscardHandler), hostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l, ok := h.LoaderFor("x.wasm")
	if !ok {
		t.Fatal("no .wasm loader")
	}
	var core *wasm.Loader
	if u, ok := l.(interface{ Unwrap() []abi.Loader }); ok {
		for _, x := range u.Unwrap() {
			if w, ok := x.(*wasm.Loader); ok {
				core = w
			}
		}
	}
	if core == nil {
		t.Fatalf("the .wasm loader %T holds no *wasm.Loader", l)
	}
	if err := closeHost(h, io.Discard); err != nil {
		t.Fatal(err)
	}
	guest := filepath.Join(testutil.RepoRoot(t), "samples", "plugins", "c-echo.wasm")
	p, err := core.Load(ctx, abi.Source{Path: guest})
	if err == nil {
		_ = p.Close()
		t.Fatal("the wasm core loader still loads after closeHost: it was not closed")
	}
	if !strings.Contains(err.Error(), "closed") {
		t.Fatalf("Load after closeHost: %v, want an error saying the loader is closed", err)
	}
}
