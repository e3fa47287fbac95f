//go:build wasmtime

package wasmtime

import (
	"context"
	"github.com/aios-host/aios-host/internal/testutil"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// Bad binaries are load errors on wasmtime, never a process abort.
func TestWasmtimeComponentRejects(t *testing.T) {
	good, err := os.ReadFile(sample(t, "hello"))
	if err != nil {
		t.Fatal(err)
	}
	core, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "build", "wasm", "c-echo.wasm"))
	if err != nil {
		t.Fatalf("run `make samples`: %v", err)
	}
	cases := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"junk", []byte("#!/bin/sh\necho hi\n")},
		{"truncated", good[:len(good)/2]},
		{"header only", []byte("\x00asm\x0d\x00\x01\x00")},
		{"core module", core},
		{"flipped bytes", flip(good)},
	}
	l := newLoader(t, Options{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "c.wasm")
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			prov, err := l.Load(context.Background(), abi.Source{Path: p})
			if err == nil {
				prov.Close()
				if c.name != "flipped bytes" {
					t.Fatalf("%s loaded", c.name)
				}
				return
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
}

func flip(b []byte) []byte {
	out := append([]byte(nil), b...)
	for i := len(out) / 3; i < len(out); i += 97 {
		out[i] ^= 0x5a
	}
	return out
}

// A panic in a host function (here: the Env behind aios:sdk call-tool)
// traps the guest and becomes a ProviderCrashed ToolError; a trap in the
// guest is ProviderCrashed; a deadline is Timeout; the provider keeps
// serving after each.
func TestWasmtimeComponentFailures(t *testing.T) {
	l := newLoader(t, Options{})
	p := loadWT(t, l, "conformance")
	panicky := &fakeEnv{call: func(string, any) (any, error) { panic("host exploded") }}
	cases := []struct {
		tool   string
		params any
		env    *fakeEnv
		d      time.Duration
		code   abi.ErrorCode
	}{
		{"nested", map[string]any{"tool": "x", "params": map[string]any{}}, panicky, 5 * time.Second, abi.ProviderCrashed},
		{"crash", map[string]any{}, &fakeEnv{}, 5 * time.Second, abi.ProviderCrashed},
		{"sleep", map[string]any{"ms": int64(1e9)}, &fakeEnv{}, 100 * time.Millisecond, abi.Timeout},
		{"fail", map[string]any{"message": "boom"}, &fakeEnv{}, 5 * time.Second, abi.ProviderError},
		{"add", map[string]any{"a": "x", "b": int64(1)}, &fakeEnv{}, 5 * time.Second, abi.InvalidParams},
	}
	for _, c := range cases {
		start := time.Now()
		_, err := callP(p, c.env, c.tool, c.params, c.d)
		if abi.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.tool, err, c.code)
		}
		if c.code == abi.Timeout && time.Since(start) > 2*time.Second {
			t.Errorf("timeout took %v", time.Since(start))
		}
		got, err := callP(p, &fakeEnv{}, "add", map[string]any{"a": int64(2), "b": int64(3)}, 5*time.Second)
		if err != nil || got.(map[string]any)["sum"] != int64(5) {
			t.Errorf("after %s: add = %v, %v", c.tool, got, err)
		}
	}
}

// The compile cache: a second loader loads from the serialized form.
func TestWasmtimeComponentCache(t *testing.T) {
	dir := t.TempDir()
	for i := range 2 {
		l := newLoader(t, Options{CacheDir: dir})
		p := loadWT(t, l, "hello")
		got, err := callP(p, &fakeEnv{}, "add", map[string]any{"a": int64(1), "b": int64(2)}, 5*time.Second)
		if err != nil || got != int64(3) {
			t.Fatalf("round %d: %v %v", i, got, err)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "*.cwasm")); len(m) != 1 {
			t.Fatalf("round %d: cache holds %v", i, m)
		}
	}
}
