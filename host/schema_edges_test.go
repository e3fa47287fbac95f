package host

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestSchemaThroughPipeline: the schema checks end to end with a
// native provider. A call whose params fail the tool's schema is
// InvalidParams naming the param's pointer and the reason (the types an
// anyOf takes, the unevaluatedProperties that refused a member, the
// array contains failed for), and the provider is not called; a provider
// whose schema would cost 2^40 evaluations per value, or that refers to a
// document beside it, is refused when it is added, naming the provider and
// the tool, promptly.
func TestSchemaThroughPipeline(t *testing.T) {
	te := newTestHost(t, nil)
	var ran atomic.Int32
	p := native.New(abi.ProviderInfo{ID: "org.test.schemas"})
	p.MustRegister(abi.ToolDef{Name: "opt", Version: "1.0.0", Parameters: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"x":    map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "null"}}},
			"tags": map[string]any{"type": "array", "contains": map[string]any{"type": "string"}},
		},
		"unevaluatedProperties": false,
	}}, func(context.Context, any, abi.Env) (any, error) { ran.Add(1); return "ran", nil })
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"x": int64(5)}, "at /x: expected string or null, got integer"},
		{map[string]any{"x": "s", "y": int64(1)}, `at /y: property "y" not allowed (unevaluatedProperties is false`},
		{map[string]any{"tags": []any{int64(1)}}, "at /tags: no items match contains schema"},
	} {
		_, err := te.call("alice", "opt", c.params)
		var te *abi.ToolError
		if !errors.As(err, &te) || te.Code != abi.InvalidParams || !strings.Contains(te.Message, "params of opt@1.0.0 violate its schema: "+c.want) {
			t.Errorf("params %v: %v, want InvalidParams …%s…", c.params, err, c.want)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("the provider ran %d times for refused params", n)
	}
	if _, err := te.call("alice", "opt", map[string]any{"x": nil, "tags": []any{int64(1), "a"}}); err != nil {
		t.Errorf("valid params: %v", err)
	}

	defs := map[string]any{"a40": map[string]any{}}
	for i := 39; i >= 0; i-- {
		next := map[string]any{"$ref": fmt.Sprintf("#/$defs/a%d", i+1)}
		defs[fmt.Sprintf("a%d", i)] = map[string]any{"allOf": []any{next, next}}
	}
	for _, c := range []struct {
		schema map[string]any
		want   string
	}{
		{map[string]any{"type": "object", "properties": map[string]any{"p": map[string]any{"$ref": "#/$defs/a0"}}, "$defs": defs}, "schema evaluations"},
		{map[string]any{"type": "object", "properties": map[string]any{"p": map[string]any{"$ref": "common.json#/$defs/p"}}}, `external schema "common.json"`},
	} {
		bad := native.New(abi.ProviderInfo{ID: "org.test.badschema"})
		bad.MustRegister(abi.ToolDef{Name: "boom", Version: "1.0.0", Parameters: c.schema},
			func(context.Context, any, abi.Env) (any, error) { return nil, nil })
		start := time.Now()
		err := te.h.AddProvider(context.Background(), bad, ProviderMeta{Source: "test", Trust: abi.System})
		if err == nil || !strings.Contains(err.Error(), "org.test.badschema") || !strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AddProvider = %v, want an error naming the provider, the tool and %q", err, c.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("AddProvider took %v", d)
		}
	}
}
