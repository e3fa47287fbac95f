//go:build unix

package wasm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/sealed"
)

// TestSealedEntryIsACacheHit guards the sealing of wazero's compile
// cache (no defect): the seal follows what wazero reads, and wazero must
// still take a sealed entry. Had it refused one (trailing bytes) it would
// compile the module again on every load, in silence, and write the entry
// anew (wazero writes a temporary file and renames it over the entry), and
// the host would seal it again: the cache would be a cost, not a saving.
// A second loader's load leaves the sealed entries untouched: the same
// file (os.SameFile: not renamed over), the same bytes.
func TestSealedEntryIsACacheHit(t *testing.T) {
	path := buildWAT(t, basicWAT("org.test.sealhit", 2))
	dir := t.TempDir()
	l := newTestLoader(t, Config{CacheDir: dir}, nil)
	p := load(t, l, path)
	if _, err := call(p, newFakeEnv(p, 5), "const", map[string]any{}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	p.Close()
	type state struct {
		fi os.FileInfo
		b  []byte
	}
	before := map[string]state{}
	for _, e := range wazeroCacheEntries(t, dir) {
		b, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sealed.Open(b, []byte(filepath.Base(e))); err != nil {
			t.Fatalf("entry %s is not sealed after a load: %v", e, err)
		}
		fi, err := os.Stat(e)
		if err != nil {
			t.Fatal(err)
		}
		before[e] = state{fi, b}
	}
	l2 := newTestLoader(t, Config{CacheDir: dir}, nil)
	p2 := load(t, l2, path)
	if _, err := call(p2, newFakeEnv(p2, 5), "const", map[string]any{}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	after := wazeroCacheEntries(t, dir)
	if len(after) != len(before) {
		t.Fatalf("cache entries %d after the second load, %d before: %v", len(after), len(before), after)
	}
	for _, e := range after {
		s, ok := before[e]
		if !ok {
			t.Fatalf("new cache entry %s after the second load (a miss)", e)
		}
		fi, err := os.Stat(e)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(e)
		if !os.SameFile(fi, s.fi) || !bytes.Equal(b, s.b) {
			t.Errorf("entry %s was written again by the second load: wazero did not take the sealed entry", e)
		}
	}
}

// slowInitWAT is a guest whose _initialize returns at once in its first
// instance (the one that registers) and loops forever in every later one:
// it reads the provider's virtual monotonic clock, which each reading
// advances (the first reads 1). Its aios_call traps, so the instance that
// served a call is not kept and the next call needs a new one.
func slowInitWAT() string {
	reg, packedReg := watData(1024, `{"format":1,"provider":{"id":"org.test.slowinit"},"tools":[{"name":"t"}]}`)
	return fmt.Sprintf(`(module
  (import "wasi_snapshot_preview1" "clock_time_get" (func $ct (param i32 i64 i32) (result i32)))
  (memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 65536))
  %s
%s  (func (export "_initialize")
    (drop (call $ct (i32.const 1) (i64.const 1) (i32.const 512)))
    (if (i64.ge_u (i64.load (i32.const 512)) (i64.const 2)) (then (loop $l (br $l)))))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64) unreachable)
)`, reg, bumpAlloc, packedReg)
}

// TestWazeroNewInstanceKeepsDeadline: the wazero provider says it
// keeps deadlines (KeepsDeadlines), so the host calls it without a
// watcher; but a call that needed a new instance ran the guest's
// _initialize under runtimes.wasm.load_timeout only (guard), so neither
// the call's deadline nor its caller's cancel stopped it and the caller
// waited the whole load_timeout (10 s by default). (The start function
// was already stopped by them: it runs under the call's context.)
func TestWazeroNewInstanceKeepsDeadline(t *testing.T) {
	const loadTimeout = 3 * time.Second
	for _, tc := range []struct {
		name string
		want abi.ErrorCode
		ctx  func() (context.Context, context.CancelFunc)
		dl   time.Duration
	}{
		{"deadline", abi.Timeout, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}, 200 * time.Millisecond},
		{"cancel", abi.Cancelled, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newTestLoader(t, Config{LoadTimeout: loadTimeout}, nil)
			p := load(t, l, buildWAT(t, slowInitWAT()))
			// The registering instance serves this call and is dropped.
			if _, err := call(p, newFakeEnv(p, 2), "t", map[string]any{}, 5*time.Second); abi.CodeOf(err) != abi.ProviderCrashed {
				t.Fatalf("first call: %v, want ProviderCrashed (the guest traps)", err)
			}
			ctx, cancel := tc.ctx()
			defer cancel()
			c := &abi.ToolCall{ID: "c2", Tool: "t", Params: map[string]any{}, Deadline: time.Now().Add(tc.dl)}
			env := *newFakeEnv(p, 2)
			env.call = c
			start := time.Now()
			_, err := p.Call(ctx, c, &env)
			took := time.Since(start)
			if abi.CodeOf(err) != tc.want {
				t.Errorf("call needing a new instance whose _initialize loops: %v (after %v), want %s", err, took, tc.want)
			}
			if took >= loadTimeout {
				t.Errorf("the call took %v: the new instance's _initialize ran to load_timeout (%v)", took, loadTimeout)
			}
		})
	}
}
