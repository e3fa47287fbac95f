package wasm

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestInitializeWrongTypeRefused: docs/abi.md §1 gives _initialize the
// type () -> (), but its type was not checked with the other exports'. One
// taking a parameter failed the load in wazero's words, "_initialize:
// expected 1 params, but passed 0", not saying which type was wanted, and
// one returning a value loaded and ran. Either is refused at load with the
// other wrong exports, "export _initialize has type (i32) -> (), want () ->
// ()", on both engines.
func TestInitializeWrongTypeRefused(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			for _, c := range []struct{ fn, want string }{
				{`(func (export "_initialize") (param i32))`, "export _initialize has type (i32) -> (), want () -> ()"},
				{`(func (export "_initialize") (result i32) (i32.const 0))`, "export _initialize has type () -> (i32), want () -> ()"},
			} {
				g := newEdgeGuest(edgeReg)
				g.call = "(i64.const 0)"
				g.extra = c.fn
				p, err := e.load(t, Config{PoolSize: 1}, abi.Source{Path: buildWAT(t, g.wat())})
				if err == nil {
					p.Close()
				}
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: load error %v; want one saying %q", c.fn, err, c.want)
				}
			}
		})
	}
}
