//go:build wasmtime

package wasm

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestWasmtimeCacheCut: a .cwasm entry cut short (a crash while the
// disk was full) or emptied is refused by its seal and compiled again; the
// module runs (no defect: a guard of what wasmtime's header check misses).
func TestWasmtimeCacheCut(t *testing.T) {
	path := buildWAT(t, basicWAT("org.test.cachecut", 2))
	for name, cut := range map[string]func(int) int{"half": func(n int) int { return n / 2 }, "seal cut": func(n int) int { return n - 10 }, "empty": func(int) int { return 0 }} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			l := newWasmtimeTestLoader(t, Config{CacheDir: dir})
			p, err := l.Load(context.Background(), abi.Source{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			p.Close()
			entries, _ := filepath.Glob(filepath.Join(dir, "*.cwasm"))
			if len(entries) != 1 {
				t.Fatalf("cache entries %v", entries)
			}
			st, err := os.Stat(entries[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(entries[0], int64(cut(int(st.Size())))); err != nil {
				t.Fatal(err)
			}
			l2 := newWasmtimeTestLoader(t, Config{CacheDir: dir})
			p, err = l2.Load(context.Background(), abi.Source{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if v, err := call(p, newFakeEnv(p, 5), "const", map[string]any{}, 5*time.Second); err != nil || v.(map[string]any)["ok"] != true {
				t.Fatalf("call after a cut cache entry: %v %v", v, err)
			}
		})
	}
}

// TestWasmtimeCacheFIFO: a .cwasm entry replaced by a FIFO held the
// load in open(2) forever (sealed.ReadFile); it is now refused at once,
// with the "unusable; recompiling" warning, and the module runs.
func TestWasmtimeCacheFIFO(t *testing.T) {
	path := buildWAT(t, basicWAT("org.test.cachefifo", 2))
	dir := t.TempDir()
	l := newWasmtimeTestLoader(t, Config{CacheDir: dir})
	p, err := l.Load(context.Background(), abi.Source{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	entries, _ := filepath.Glob(filepath.Join(dir, "*.cwasm"))
	if len(entries) != 1 {
		t.Fatalf("cache entries %v", entries)
	}
	if err := os.Remove(entries[0]); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(entries[0], 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	l2 := newWasmtimeTestLoader(t, Config{CacheDir: dir})
	done := make(chan error, 1)
	go func() {
		p, err := l2.Load(context.Background(), abi.Source{Path: path})
		if err == nil {
			_, err = call(p, newFakeEnv(p, 5), "const", map[string]any{}, 5*time.Second)
			p.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("load with a FIFO in the cache: %v", err)
		}
	case <-time.After(10 * time.Second):
		if f, err := os.OpenFile(entries[0], os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("the load hung on a FIFO in the compile cache")
	}
}
