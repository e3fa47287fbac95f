package wasm

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/wire"
)

// TestHostCallNotJSONArgsNamed: a MessagePack host call whose arguments
// hold NaN or an infinity (a C or Rust guest's call_tool params) is
// InvalidParams naming the value's path in the request, as a JS or Python
// tool's call_tool arguments are named; it was InvalidRequest
// "malformed request: msgpack: NaN is not a JSON number at byte 29", as
// if the guest's encoder were broken, naming no field.
func TestHostCallNotJSONArgsNamed(t *testing.T) {
	req := wire.AppendString(wire.AppendMapHeader(nil, 2), "tool")
	req = wire.AppendString(req, "t")
	req = wire.AppendString(req, "params")
	req = wire.AppendString(wire.AppendMapHeader(req, 1), "a")
	req = wire.AppendInt(wire.AppendArrayHeader(req, 2), 1)
	req = wire.AppendFloat(req, math.NaN())
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			g := newEdgeGuest(edgeReg)
			ptr, n := pk(g.seg(string(req)))
			g.call = fmt.Sprintf("(call $call_tool %s %s)", ptr, n)
			p := edgeLoad(t, e, Config{PoolSize: 1}, g.wat())
			env := newFakeEnv(p, 3)
			called := false
			env.tools = map[string]func(any) (any, error){"t": func(params any) (any, error) { called = true; return params, nil }}
			_, err := call(p, env, "t", map[string]any{}, 5*time.Second)
			want := "NaN is not a JSON number at $.params.a[1]"
			if te, ok := err.(*abi.ToolError); !ok || te.Code != abi.InvalidParams || !strings.Contains(te.Message, want) {
				t.Errorf("%v; want InvalidParams naming %q", err, want)
			}
			if called {
				t.Error("the tool was called")
			}
		})
	}
}
