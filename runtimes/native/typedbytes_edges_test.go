package native

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestTypedResultBytesAsBase64: a Typed handler's []byte result, or a
// []byte in the map[string]any it returns, was InvalidResult "raw bytes are
// not a JSON value", where the same struct field was base64 (encoding/json's
// rule, which README gives Typed results) and a Go guest's HandleFunc
// writes all three as base64: the handler moved from a guest to a native
// provider failed every call. Typed results are base64 there too; a value
// encoding/json refuses as well (a NaN) is still InvalidResult naming it.
func TestTypedResultBytesAsBase64(t *testing.T) {
	env := callEnv{call: &abi.ToolCall{Tool: "thumb"}}
	top := Typed(func(context.Context, map[string]any, abi.Env) ([]byte, error) { return []byte("ab"), nil })
	if v, err := top(context.Background(), map[string]any{}, env); err != nil || v != "YWI=" {
		t.Fatalf("[]byte result: %#v %v, want \"YWI=\"", v, err)
	}
	inMap := Typed(func(context.Context, map[string]any, abi.Env) (map[string]any, error) {
		return map[string]any{"png": []byte("ab"), "n": int64(3), "name": "x"}, nil
	})
	want := map[string]any{"png": "YWI=", "n": int64(3), "name": "x"}
	if v, err := inMap(context.Background(), map[string]any{}, env); err != nil || !reflect.DeepEqual(v, want) {
		t.Fatalf("map with []byte: %#v %v, want %#v", v, err, want)
	}
	nan := Typed(func(context.Context, map[string]any, abi.Env) (map[string]any, error) {
		return map[string]any{"png": []byte("ab"), "r": math.NaN()}, nil
	})
	if _, err := nan(context.Background(), map[string]any{}, env); abi.CodeOf(err) != abi.InvalidResult || !strings.Contains(err.Error(), "thumb") {
		t.Fatalf("NaN: %v, want InvalidResult naming the tool", err)
	}
}
