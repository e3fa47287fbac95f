package python_test

import (
	"reflect"
	"testing"
)

// A tool with a parameter named "properties" (a create-entity tool taking
// the entity's properties), written in the seed's shorthand, was read as a
// whole schema because it has a "properties" dict, and the provider failed
// to load: "schema of create-entity parameters is invalid: at
// /properties/type: got string, want boolean or object". A "properties"
// dict holding a value that is not a schema is that parameter's schema.
func TestPropertiesParameterShorthand(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	p := loadTool(t, h, "entity.py", `
from aios_sdk import tool

@tool(name="create-entity", parameters={
    "name": {"type": "string"},
    "properties": {"type": "object", "description": "the entity's properties"},
})
def create(params):
    return params

@tool(name="whole", parameters={"properties": {"a": {"type": "string"}, "b": True}})
def whole(params):
    return params
`)
	want := map[string]map[string]any{
		"create-entity": {"type": "object", "properties": map[string]any{
			"name":       map[string]any{"type": "string"},
			"properties": map[string]any{"type": "object", "description": "the entity's properties"},
		}, "required": []any{"name", "properties"}},
		"whole": {"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}, "b": true}},
	}
	seen := 0
	for _, tl := range p.Describe().Tools {
		w, ok := want[tl.Name]
		if !ok {
			continue
		}
		seen++
		if !reflect.DeepEqual(tl.Parameters, w) {
			t.Errorf("%s: parameters %#v\nwant %#v", tl.Name, tl.Parameters, w)
		}
	}
	if seen != len(want) {
		t.Fatalf("%d of %d tools registered", seen, len(want))
	}
	got, err := call(h, "create-entity", map[string]any{"name": "a", "properties": map[string]any{"x": 1}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := got.(map[string]any); m["name"] != "a" {
		t.Fatalf("create-entity returned %#v", got)
	}
}
