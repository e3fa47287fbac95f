package wasm

import (
	"reflect"
	"testing"
	"time"
)

// TestProbeJSONGuestBigWholeFloats: a guest that speaks JSON gets a float
// from 2^53 up to 1e21 as a float, in its ToolCall and in a host call's
// answer. encoding/json wrote 2^60 as 1152921504606847000, which reads
// back (in the host and in the Go SDK's wire.FromJSON) as an exact integer
// that is not the float's value, where a MessagePack guest gets the float.
// The guest forwards its own ToolCall to call_tool and returns the answer,
// so the params make the whole round trip: call, request, answer, result.
func TestProbeJSONGuestBigWholeFloats(t *testing.T) {
	for _, e := range edgeEngines {
		t.Run(e.name, func(t *testing.T) {
			g := newEdgeGuest(edgeReg)
			g.call = `(call $call_tool (local.get $p) (local.get $n))`
			p := edgeLoad(t, e, Config{PoolSize: 1}, g.wat())
			env := newFakeEnv(p, 3)
			env.tools = map[string]func(any) (any, error){"t": func(params any) (any, error) {
				return map[string]any{"seen": params, "made": []any{float64(1 << 60), -float64(1 << 63), 1e20}}, nil
			}}
			params := map[string]any{"f": float64(1 << 60), "g": []any{float64(1 << 53), int64(1<<53 + 1), uint64(1 << 63)}}
			got, err := call(p, env, "t", params, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"seen": params, "made": []any{float64(1 << 60), -float64(1 << 63), 1e20}}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %#v\nwant %#v", got, want)
			}
		})
	}
}
