//go:build wasmtime

package wasm

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// memfdImages counts wasmtime's memory images (one memfd per compiled
// module with data segments, held as long as the module is).
func memfdImages() int {
	n := 0
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && strings.Contains(l, "memfd:wasm-memory-image") {
			n++
		}
	}
	return n
}

// TestLeakWasmtimeProviderClosed: a core module loaded on wasmtime,
// called and closed (a hot reload, a removed plugin) must give back its
// compiled module. Before the fix, the linker's host functions (Go
// closures over the provider, kept in wasmtime-go's global table until the
// linker is deleted) kept the provider, its linker and its module
// reachable for ever: every load left a memfd memory image and ~16 MiB of
// RSS behind.
func TestLeakWasmtimeProviderClosed(t *testing.T) {
	path := filepath.Join(testutil.RepoRoot(t), "build", "wasm", "conformance.wasm")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%v (run `make samples`)", err)
	}
	l := newWasmtimeTestLoader(t, Config{})
	cycle := func() {
		p, err := l.Load(context.Background(), abi.Source{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Call(context.Background(), &abi.ToolCall{Tool: "echo", Params: map[string]any{"value": "x"}}, nil); err != nil {
			t.Fatal(err)
		}
		_ = p.Close()
	}
	// settle collects until at most want images are open, or 30 s: the
	// modules are freed by finalizers, which a loaded machine (-race, 2
	// busy cores) may run well after the three collections of 20 ms this
	// waited before.
	settle := func(want int) int {
		n := 0
		for end := time.Now().Add(30 * time.Second); ; {
			runtime.GC()
			time.Sleep(20 * time.Millisecond)
			if n++; n >= 3 && (memfdImages() <= want || time.Now().After(end)) {
				return memfdImages()
			}
		}
	}
	cycle()
	before := settle(math.MaxInt) // three collections
	const n = 6
	for range n {
		cycle()
	}
	after := settle(before)
	t.Logf("wasmtime memory images %d -> %d after %d loads and closes", before, after, n)
	if after > before {
		t.Errorf("%d loads and closes of one module left %d more wasmtime modules (memfd memory images) open", n, after-before)
	}
}
