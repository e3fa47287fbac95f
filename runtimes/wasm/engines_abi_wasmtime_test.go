//go:build wasmtime

package wasm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

func init() {
	edgeEngines = append(edgeEngines, edgeEngine{"wasmtime", func(t *testing.T, cfg Config, src abi.Source) (abi.Provider, error) {
		return newWasmtimeTestLoader(t, cfg).Load(context.Background(), src)
	}})
	wz := edgeInstances
	edgeInstances = func(p abi.Provider) int {
		if w, ok := p.(*wtProvider); ok {
			return w.Instances()
		}
		return wz(p)
	}
}

// The wasmtime engine takes the features wazero has (wasmtime_engine.go:
// "memory64, GC and the rest are off as on wazero"): a module using tail
// calls was refused on wazero and ran on wasmtime.
func TestWasmtimeFeaturesAsWazero(t *testing.T) {
	g := newEdgeGuest(edgeReg)
	ok := g.seg(`{"value":1}`)
	g.call = "(return_call $result)"
	g.extra = fmt.Sprintf(`(func $result (result i64) (i64.const %d))`, ok)
	dir := t.TempDir()
	wat := filepath.Join(dir, "tail.wat")
	if err := os.WriteFile(wat, []byte(g.wat()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "tail.wasm")
	if b, err := exec.Command("wat2wasm", "--enable-tail-call", wat, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v %s", err, b)
	}
	for _, e := range edgeEngines {
		p, err := e.load(t, Config{}, abi.Source{Path: out})
		t.Logf("%s: %v", e.name, err)
		if err == nil {
			p.Close()
			t.Errorf("%s loaded a module with tail calls", e.name)
		}
	}
}
