package python_test

import (
	"reflect"
	"testing"

	"github.com/aios-host/aios-host/guest/go/shorthand"
)

// TestProbeShorthandSameAsGo: seed 000 §9.1 — "a tool registered from
// Python with parameters {...} is indistinguishable from the same schema
// registered from Rust or TypeScript". The Go SDK's json_schema!
// (shorthand.Expand) lists required names sorted; the Python SDK listed
// them in declaration order, so the seed's §9.3 parameters (object_id,
// then language) gave another "required" from Python than from Go.
func TestProbeShorthandSameAsGo(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	p := loadTool(t, h, "analyzer.py", `
from aios_sdk import tool

@tool(name="analyze-complexity", parameters={
    "object_id": {"type": "string", "description": "ObjectId of source file"},
    "language": {"type": "string", "enum": ["rust", "python", "typescript"]},
    "zeta": {"type": "string", "optional": True},
    "alpha": {"type": "integer", "default": 1},
    "beta": {"type": "string"},
    "gamma": {"type": "string", "optional": 1},
})
def analyze(params):
    return {}

@tool(name="explicit", parameters={"b": {"type": "string"}, "a": {"type": "string"}}, required=["b", "a"])
def explicit(params):
    return {}
`)
	want, err := shorthand.Expand(map[string]any{
		"object_id": map[string]any{"type": "string", "description": "ObjectId of source file"},
		"language":  map[string]any{"type": "string", "enum": []any{"rust", "python", "typescript"}},
		"zeta":      map[string]any{"type": "string", "optional": true},
		"alpha":     map[string]any{"type": "integer", "default": int64(1)},
		"beta":      map[string]any{"type": "string"},
		"gamma":     map[string]any{"type": "string", "optional": int64(1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	for _, tl := range p.Describe().Tools {
		got[tl.Name] = tl.Parameters
	}
	if !reflect.DeepEqual(got["analyze-complexity"], want) {
		t.Fatalf("Python schema %#v\nGo's json_schema! gives %#v", got["analyze-complexity"], want)
	}
	// An explicit required=[...] is kept as given.
	if r := got["explicit"]["required"]; !reflect.DeepEqual(r, []any{"b", "a"}) {
		t.Fatalf("explicit required = %v, want [b a] as given", r)
	}
}
