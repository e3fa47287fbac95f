//go:build wasmtime

package wasmtime

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component"
)

// TestPostReturnTrapNamedOnWasmtime: a post-return function that trapped
// failed the call on wasmtime with "tool f: wasm error: unreachable", as
// if f itself had trapped, where the wazero engine says "tool f:
// post-return: wasm error: unreachable" (component.TestPostReturnTrapNamed).
// Both engines name the post-return. The component is `jco parse` of
//
//	(component
//	  (core module $m
//	    (func (export "f") (result i32) i32.const 7)
//	    (func (export "post") (param i32) unreachable))
//	  (core instance $i (instantiate $m))
//	  (func $f (result u32) (canon lift (core func $i "f") (post-return (func $i "post"))))
//	  (export "f" (func $f)))
func TestPostReturnTrapNamedOnWasmtime(t *testing.T) {
	b, err := hex.DecodeString("0061736d0d000100013d0061736d010000000109026000017f60017f000303020001070c020166000004706f737400010a0a02040041070b0300000b0009046e616d650002016d020401000000070501400000790610020000010001660000010004706f7374080801000000010501000b070100016601000000260e636f6d706f6e656e742d6e616d65010600110100016d010600120100016901050101000166")
	if err != nil {
		t.Fatal(err)
	}
	const want = "tool f: post-return: wasm error: unreachable"
	pa, err := component.New(context.Background(), b, "post.wasm", "", component.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pa.Close()
	if v, err := callP(pa, &fakeEnv{}, "f", map[string]any{}, 10*time.Second); abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), want) {
		t.Fatalf("wazero: f = %v, %v; want ProviderCrashed saying %q", v, err, want)
	}
	l := newLoader(t, Options{})
	pb, err := l.LoadBytes(context.Background(), abi.Source{Path: "post.wasm"}, b)
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Close()
	for i := 0; i < 2; i++ { // the broken instance is thrown away: the next call traps the same
		if v, err := callP(pb, &fakeEnv{}, "f", map[string]any{}, 10*time.Second); abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), want) {
			t.Fatalf("wasmtime call %d: f = %v, %v; want ProviderCrashed saying %q", i, v, err, want)
		}
	}
}
