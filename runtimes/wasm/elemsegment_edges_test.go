package wasm

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// An active element segment that does not fit in its table fails the
// instantiation (the segment traps; WebAssembly 2.0), as on wasmtime: wazero
// skipped it, and every segment after it, and ran the module with those
// table entries null, so the same file loaded on one engine and not on the
// other, and on wazero a call_indirect through an entry a later segment
// should have set trapped in a call.
func TestElementSegmentOutsideTable(t *testing.T) {
	for _, tc := range []struct {
		name, extra string
		refused     string // "" when it loads and call_indirect 0 answers
	}{
		{"past the end", `(table 1 funcref) (elem (i32.const 5) $f)`, "elem[0]"},
		{"one past the end", `(table 2 funcref) (elem (i32.const 0) $f) (elem (i32.const 1) $f $f)`, "elem[1]"},
		{"negative offset", `(table 2 funcref) (elem (i32.const 0) $f) (elem (i32.const -1) $f)`, "elem[1]"},
		{"second table", `(table 1 funcref) (table $b 8 funcref) (elem (i32.const 0) $f) (elem (table $b) (i32.const 7) func $f $f)`, "elem[1]"},
		{"fits", `(table 2 funcref) (elem (i32.const 0) $f) (elem (i32.const 1) $f)`, ""},
		{"fits the second table", `(table 1 funcref) (table $b 8 funcref) (elem (i32.const 0) $f) (elem (table $b) (i32.const 6) func $f $f)`, ""},
		{"empty segment", `(table 1 funcref) (elem (i32.const 0) $f) (elem (i32.const 1))`, ""},
	} {
		for _, e := range edgeEngines {
			t.Run(tc.name+"/"+e.name, func(t *testing.T) {
				g := newEdgeGuest(edgeReg)
				ok := g.seg(`{"value":1}`)
				g.extra = tc.extra + fmt.Sprintf(` (type $t (func (result i64))) (func $f (result i64) (i64.const %d))`, ok)
				g.call = `(call_indirect (type $t) (i32.const 0))`
				p, err := e.load(t, Config{PoolSize: 1}, abi.Source{Path: buildWAT(t, g.wat())})
				if tc.refused != "" {
					if err == nil {
						p.Close()
						t.Fatalf("loaded; want %s refused", tc.refused)
					}
					want := ": instantiate: " + tc.refused + ": out of bounds table access"
					if !strings.Contains(err.Error(), want) {
						t.Fatalf("error %q\nwant it to contain %q", err, want)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if v, err := call(p, newFakeEnv(p, 3), "t", map[string]any{}, 5*time.Second); err != nil || v != int64(1) {
					t.Fatalf("call: %v %v", v, err)
				}
			})
		}
	}
}
