//go:build wasmtime

package wasmtime

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component"
)

// TestMemoryFaultInWazeroWords (found by p164): a component whose guest
// read past its memory failed on wasmtime with "memory fault at wasm
// address 0x11170 in linear memory of size 0x10000", the first of
// wasmtime's causes, where the wazero component runtime (and the core
// engines) say "wasm error: out of bounds memory access" — the trap
// wasmtime names on the next line. The trap's words are looked for in
// every cause line now; both engines say the same.
func TestMemoryFaultInWazeroWords(t *testing.T) {
	b := featureComponent(featureCore(t, `(module (memory 1) (func (export "f") (result i32) (i32.load (i32.const 70000))))`))
	const want = "ProviderCrashed: tool run: wasm error: out of bounds memory access"
	pa, err := component.New(context.Background(), b, "oob.wasm", "", component.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pa.Close()
	l := newLoader(t, Options{})
	pb, err := l.LoadBytes(context.Background(), abi.Source{Path: "oob.wasm"}, b)
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Close()
	for name, p := range map[string]abi.Provider{"wazero": pa, "wasmtime": pb} {
		_, err := callP(p, &fakeEnv{}, "run", map[string]any{}, 10*time.Second)
		if abi.CodeOf(err) != abi.ProviderCrashed || err.Error() != want {
			t.Errorf("%s: %v, want %s", name, err, want)
		}
	}
}
