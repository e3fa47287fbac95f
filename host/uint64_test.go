package host

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestUint64ThroughPipeline: a 64-bit unsigned id in params passes the
// schema (an integer bound above int64 included), reaches the tool as the
// same uint64 and comes back exactly; one past the schema's maximum is
// refused by the schema, not rounded into range.
func TestUint64ThroughPipeline(t *testing.T) {
	te := newTestHost(t, nil)
	p := native.New(abi.ProviderInfo{ID: "org.test.u64"})
	p.MustRegister(abi.ToolDef{Name: "u64-echo", Version: "1.0.0",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"id": map[string]any{"type": "integer", "minimum": 0, "maximum": uint64(math.MaxUint64)},
			"lo": map[string]any{"type": "integer", "maximum": json18446744073709551614()},
		}},
		Returns: map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "integer"}}},
	}, func(_ context.Context, params any, _ abi.Env) (any, error) {
		id := params.(map[string]any)["id"]
		if _, ok := id.(uint64); !ok {
			return nil, abi.Errorf(abi.ProviderError, "id reached the tool as %T", id)
		}
		return map[string]any{"id": id}, nil
	})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	var params any
	if err := abi.UnmarshalJSONValue([]byte(`{"id": 18446744073709551615}`), &params); err != nil {
		t.Fatal(err)
	}
	got, err := te.call("alice", "u64-echo", params)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"id": uint64(math.MaxUint64)}; !reflect.DeepEqual(got, want) {
		t.Fatalf("u64-echo: %#v, want %#v", got, want)
	}
	_, err = te.call("alice", "u64-echo", map[string]any{"id": uint64(math.MaxUint64), "lo": uint64(math.MaxUint64)})
	var terr *abi.ToolError
	if !errors.As(err, &terr) || terr.Code != abi.InvalidParams {
		t.Fatalf("lo above its maximum: %v, want InvalidParams", err)
	}
}

// json18446744073709551614 is 2^64−2, a bound the params' 2^64−1 passes
// only if it is rounded to a float64 (both become 2^64).
func json18446744073709551614() any { return uint64(math.MaxUint64 - 1) }
