package wasm

import (
	"context"
	"fmt"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestGuestRegistersSeveralVersionsOfATool: a guest registering a@1.0.0
// and a@2.0.0 (one module serving both, dispatching on the ToolCall's
// "version") was refused at load, `tool "a" is registered twice`, though
// docs/registry.md says a WASM provider may hold several versions of a
// name, as a native Go or MCP provider does, and the ToolCall carries the
// version the host resolved so the guest can tell them apart. The module
// loads with both; the same name@version twice is still the registry's
// "registers tool a@1.0.0 twice". Both engines.
func TestGuestRegistersSeveralVersionsOfATool(t *testing.T) {
	g := newEdgeGuest(`{"format":1,"provider":{"id":"org.probe.versions"},"tools":[` +
		`{"name":"a","version":"1.0.0"},{"name":"a","version":"2.0.0"}]}`)
	one := g.seg(`{"value":"one"}`)
	two := g.seg(`{"value":"two"}`)
	// Find `rsion":"` in the ToolCall and answer by the byte after it.
	g.call = fmt.Sprintf(`(local $i i32)
    (block $done (loop $scan
      (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 9)) (local.get $n)))
      (if (i64.eq (i64.load (i32.add (local.get $p) (local.get $i))) (i64.const 0x223a226e6f697372))
        (then (if (i32.eq (i32.load8_u (i32.add (i32.add (local.get $p) (local.get $i)) (i32.const 8))) (i32.const 0x32))
          (then (return (i64.const %d))))
          (br $done)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $scan)))
    (i64.const %d)`, two, one)
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			p := edgeLoad(t, e, Config{PoolSize: 1}, g.wat())
			reg := p.Describe()
			if len(reg.Tools) != 2 || reg.Tools[0].Version != "1.0.0" || reg.Tools[1].Version != "2.0.0" {
				t.Fatalf("tools %+v; want a@1.0.0 and a@2.0.0", reg.Tools)
			}
			for v, want := range map[string]string{"1.0.0": "one", "2.0.0": "two"} {
				got, err := p.Call(context.Background(), &abi.ToolCall{ID: "c" + v, Tool: "a", Version: v, Params: map[string]any{}}, nil)
				if err != nil || got != want {
					t.Errorf("a@%s: %v, %v; want %q", v, got, err, want)
				}
			}
		})
	}
}
