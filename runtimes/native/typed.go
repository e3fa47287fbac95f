package native

import (
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/wire"
)

// Typed adapts a function on Go types to a Handler.
//
// Params are decoded into In by a JSON round trip (encoding/json, so struct
// tags apply; wire.DecodeTyped, as the Go guest SDK's HandleFunc: numbers
// stay exact, a generic value inside In holding the canonical int64,
// uint64 or float64): about 1–3 µs and a handful of allocations for
// small params.
// When params already have type In (In is any, map[string]any, string,
// int64 ...) they are passed as they are, at no
// cost. The result is converted to canonical form with abi.Normalize: free
// for maps and scalars, a JSON round trip for structs. A hot tool that cares
// about the last microsecond takes map[string]any.
//
// A params value that does not decode into In fails with InvalidParams
// naming the problem (the schema should already have caught it).
//
// Typed of a nil func is a nil Handler, which Register refuses naming the
// tool, as it refuses a nil Handler.
//
// Typed is never inlined: its handler's frame is then always named
// native.Typed[...], which a panic's stack leaves out (crashError); inlined
// into the author's code it was named as theirs, at a typed.go of their
// package.
//
//go:noinline
func Typed[In, Out any](fn func(ctx context.Context, in In, env abi.Env) (Out, error)) Handler {
	if fn == nil {
		return nil
	}
	return func(ctx context.Context, params any, env abi.Env) (any, error) {
		tool := ""
		if env != nil {
			if c := env.Call(); c != nil {
				tool = c.Tool
			}
		}
		in, err := decodeParams[In](tool, params)
		if err != nil {
			return nil, err
		}
		out, err := fn(ctx, in, env)
		if err != nil {
			return nil, err
		}
		v := any(out)
		if abi.IsCanonical(v) {
			return v, nil
		}
		v, err = abi.Normalize(bytesAsJSON(v, 0))
		if err != nil {
			// As the host answers a plain handler's (checkResult) and
			// the Go guest SDK a HandleFunc's.
			what := "tool result"
			if tool != "" {
				what = "result of " + tool
			}
			return nil, &abi.ToolError{Code: abi.InvalidResult, Message: what + " is not a JSON value: " + err.Error()}
		}
		return v, nil
	}
}

// decodeParams decodes params into an In; its InvalidParams names the
// tool (when known) and In, as a Go guest's HandleFunc does.
func decodeParams[In any](tool string, params any) (In, error) {
	if in, ok := params.(In); ok {
		return in, nil // In is any, map[string]any, or exactly the params' type
	}
	var in In
	if err := wire.DecodeTyped(params, &in); err != nil {
		prefix := "params"
		if tool != "" {
			prefix = tool + ": params"
		}
		var ue *json.UnsupportedValueError
		var ute *json.UnsupportedTypeError
		if errors.As(err, &ue) || errors.As(err, &ute) {
			return in, &abi.ToolError{Code: abi.InvalidParams, Message: prefix + " cannot be encoded: " + err.Error()}
		}
		return in, &abi.ToolError{Code: abi.InvalidParams, Message: fmt.Sprintf("%s do not fit the tool's Go type %T: %v", prefix, in, err)}
	}
	return in, nil
}

// bytesAsJSON is a Typed handler's result v with each Go value in it that
// holds a byte slice ([]byte, map[string][]byte, a named byte slice), at
// the top or inside the map[string]any and []any it returns, replaced by
// its encoding/json text (a []byte is base64), as a struct's field is
// and as a Go guest's HandleFunc writes it: abi.Normalize refuses bytes.
// The maps and slices of v are changed in place, as abi.Normalize changes
// them; a value encoding/json refuses is left for Normalize to name.
func bytesAsJSON(v any, depth int) any {
	if depth > abi.MaxDepth {
		return v
	}
	switch x := v.(type) {
	case nil, bool, int64, uint64, float64, string, json.RawMessage:
		return v
	case map[string]any:
		for k, e := range x {
			x[k] = bytesAsJSON(e, depth+1)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = bytesAsJSON(e, depth+1)
		}
		return x
	}
	if !holdsBytes(reflect.TypeOf(v), 0) {
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	return json.RawMessage(b)
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// holdsBytes reports whether a value of type t may hold a byte slice that
// encoding/json writes as base64 (not one inside a struct, which
// abi.Normalize already writes by encoding/json's rules, nor one of a type
// that writes itself).
func holdsBytes(t reflect.Type, depth int) bool {
	if depth > 32 || t.Implements(jsonMarshaler) || t.Implements(textMarshaler) {
		return false
	}
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return true
		}
		return holdsBytes(t.Elem(), depth+1)
	case reflect.Pointer, reflect.Array, reflect.Map:
		return holdsBytes(t.Elem(), depth+1)
	}
	return false
}
