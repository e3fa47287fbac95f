package wasm

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/wire"
)

// TestJSONGuestBigWholeFloats: a guest that speaks JSON gets a float
// from 2^53 up to 1e21 as a float, in its ToolCall and in a host call's
// answer. encoding/json wrote 2^60 as 1152921504606847000, which reads
// back (in the host and in the Go SDK's wire.FromJSON) as an exact integer
// that is not the float's value, where a MessagePack guest gets the float.
// The guest forwards its own ToolCall to call_tool and returns the answer,
// so the params make the whole round trip: call, request, answer, result.
func TestJSONGuestBigWholeFloats(t *testing.T) {
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

// TestResultCodecsAgree: a ToolResult means the same in JSON and in
// MessagePack. The JSON one was decoded into a Go struct by encoding/json,
// which matches member names case-insensitively: {"Value": 5} was the
// value 5 in JSON and null in MessagePack (docs/abi.md: a missing "value"
// means null), {"ERROR": {…}} an error in JSON and null in MessagePack,
// and an error whose code was spelled "Code" a guest error in JSON and a
// protocol error in MessagePack (an error without a string "code").
func TestResultCodecsAgree(t *testing.T) {
	for _, c := range []struct {
		text      string
		value     any
		guestCode abi.ErrorCode
		proto     bool
	}{
		{`{"Value":5}`, nil, "", false},
		{`{"value":1,"Value":2}`, int64(1), "", false},
		{`{"VALUE":1,"value":2}`, int64(2), "", false},
		{`{"ERROR":{"code":"NotFound","message":"m"}}`, nil, "", false},
		{`{"error":{"Code":"NotFound","message":"m"}}`, nil, "", true},
		{`{"error":{"code":"NotFound","Message":5}}`, nil, abi.NotFound, false},
		{`{"error":{"code":"NotFound","message":"m","Data":1}}`, nil, abi.NotFound, false},
		{`{"value":[1.5,"x"],"error":null}`, []any{1.5, "x"}, "", false},
	} {
		var generic any
		if err := abi.UnmarshalJSONValue([]byte(c.text), &generic); err != nil {
			t.Fatal(err)
		}
		mp, err := wire.AppendValue(nil, generic)
		if err != nil {
			t.Fatal(err)
		}
		for _, enc := range []struct {
			name string
			data []byte
		}{{"json", []byte(c.text)}, {"msgpack", mp}} {
			v, gerr, perr := decodeResult(enc.data)
			switch {
			case c.proto:
				if perr == nil {
					t.Errorf("%s %s: got %#v, %v; want a protocol error", enc.name, c.text, v, gerr)
				}
			case c.guestCode != "":
				if perr != nil || gerr == nil || gerr.Code != c.guestCode || gerr.Data != nil {
					t.Errorf("%s %s: got %#v, %v, %v; want the guest's %s without data", enc.name, c.text, v, gerr, perr, c.guestCode)
				}
			default:
				if perr != nil || gerr != nil || !reflect.DeepEqual(v, c.value) {
					t.Errorf("%s %s: got %#v, %v, %v; want the value %#v", enc.name, c.text, v, gerr, perr, c.value)
				}
			}
		}
	}
}

// TestResultNotJSONValue: a MessagePack ToolResult that is well formed
// but holds a value JSON has no form for (NaN, Inf, bin) is the guest's
// InvalidResult, naming what, with its instance kept (a JS or Python
// tool returning NaN gets the same); it was "malformed ToolResult" and
// the instance discarded. A truncated result is still malformed.
func TestResultNotJSONValue(t *testing.T) {
	nan := []byte{0x81, 0xa5, 'v', 'a', 'l', 'u', 'e', 0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 1}
	inf := []byte{0x81, 0xa5, 'v', 'a', 'l', 'u', 'e', 0x91, 0xcb, 0x7f, 0xf0, 0, 0, 0, 0, 0, 0}
	bin := []byte{0x81, 0xa5, 'v', 'a', 'l', 'u', 'e', 0x81, 0xa1, 'b', 0xc4, 2, 1, 2}
	for name, data := range map[string][]byte{"NaN": nan, "Inf in a list": inf, "bin in a map": bin} {
		v, gerr, perr := decodeResult(data)
		if perr != nil || gerr == nil || gerr.Code != abi.InvalidResult || !strings.Contains(gerr.Message, "not a JSON value") {
			t.Errorf("%s: %v, guest error %v, protocol error %v; want the guest's InvalidResult", name, v, gerr, perr)
		}
	}
	if _, gerr, perr := decodeResult(nan[:10]); perr == nil || gerr != nil || !strings.Contains(perr.Message, "malformed MessagePack") {
		t.Errorf("a truncated result: guest error %v, protocol error %v; want malformed", gerr, perr)
	}
}
