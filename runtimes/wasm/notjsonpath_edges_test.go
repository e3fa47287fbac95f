package wasm

import (
	"math"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/wire"
)

// TestNotJSONResultNamesPath: a guest's MessagePack ToolResult whose
// value holds what JSON cannot (NaN, an infinity, bin) is InvalidResult
// naming the value's path, $.a[1], as a JS, Python, Go-SDK or component
// tool's is; it named only the byte offset in the ToolResult ("NaN is not
// a JSON number (at byte 21 of its ToolResult)"), which a C or Rust
// guest's author cannot map back to a field.
func TestNotJSONResultNamesPath(t *testing.T) {
	value := func(rest func(b []byte) []byte) []byte {
		b := wire.AppendString(wire.AppendMapHeader(nil, 1), "value")
		return rest(b)
	}
	cases := []struct {
		msg  []byte
		want string
	}{
		{value(func(b []byte) []byte {
			b = wire.AppendString(wire.AppendMapHeader(b, 2), "z")
			b = wire.AppendInt(b, 1)
			b = wire.AppendString(b, "a")
			b = wire.AppendInt(wire.AppendArrayHeader(b, 2), 1)
			return wire.AppendFloat(b, math.NaN())
		}), "at $.a[1]"},
		{value(func(b []byte) []byte {
			b = wire.AppendArrayHeader(b, 3)
			b = wire.AppendString(wire.AppendMapHeader(wire.AppendNil(wire.AppendNil(b)), 1), "img")
			return wire.AppendBytes(b, []byte("x"))
		}), "at $[2].img"},
		{value(func(b []byte) []byte { return wire.AppendFloat(b, math.Inf(-1)) }), "at $ "},
	}
	for _, c := range cases {
		_, guestErr, protoErr := decodeResult(c.msg)
		if protoErr != nil || guestErr == nil || guestErr.Code != abi.InvalidResult || !strings.Contains(guestErr.Message, c.want) {
			t.Errorf("got %v, %v; want InvalidResult naming %q", guestErr, protoErr, c.want)
		}
	}
}
