package wasm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestMemoryAboveLimitNamesTheKey: a module whose memory starts above
// the memory limit was refused on wazero as an "invalid WebAssembly
// module: section memory: min 5000 pages (312 Mi) over limit of 4096
// pages (256 Mi)": the module is valid, the limit is the host's, and
// nothing said which setting raises it. The error says so and names
// runtimes.wasm.providers.<stem>.memory_limit_pages, which does raise it.
func TestMemoryAboveLimitNamesTheKey(t *testing.T) {
	d, reg := watData(1024, `{"format":1,"provider":{"id":"org.test.bigmem"},"tools":[{"name":"go"}]}`)
	d2, ok := watData(4096, `{"value":{"ok":true}}`)
	src := fmt.Sprintf(`(module (memory (export "memory") 5000) %s %s
  (func (export "aios_alloc") (param i32) (result i32) (i32.const 8192))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64) (i64.const %d)))`, d, d2, reg, ok)
	b, err := os.ReadFile(buildWAT(t, src))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bigmem.wasm")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for engine, l := range probeLoaders(t, Config{}, nil) {
		t.Run(engine, func(t *testing.T) {
			p, err := l.Load(context.Background(), abi.Source{Path: path})
			if err == nil {
				p.Close()
				t.Fatal("a module starting at 5000 pages loaded under a 4096-page limit")
			}
			t.Log(err)
			for _, want := range []string{"5000 pages", "4096 pages", "runtimes.wasm.providers.bigmem.memory_limit_pages"} {
				if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "invalid") {
					t.Fatalf("the error does not say the host's limit is below the module's memory, and how to raise it (%q): %v", want, err)
				}
			}
		})
	}
	// The key named raises it.
	for engine, l := range probeLoaders(t, Config{Providers: map[string]ProviderConfig{"bigmem": {MemoryLimitPages: 5000}}}, nil) {
		t.Run(engine+"/raised", func(t *testing.T) {
			p, err := l.Load(context.Background(), abi.Source{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if v, err := call(p, newFakeEnv(p, 2), "go", map[string]any{}, 5e9); err != nil || v.(map[string]any)["ok"] != true {
				t.Fatalf("%v %v", v, err)
			}
		})
	}
}
