package js

import (
	"reflect"
	"testing"
)

// A parameter named "properties" in the seed's shorthand made the map read
// as a whole schema (it has a "properties" object) and the load failed
// ("at /properties/type: got string, want boolean or object"); a
// "properties" object holding a value that is not a schema is that
// parameter's schema, as in the Python and Go SDKs.
func TestPropertiesParameterShorthand(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "entity.js", `
aios.provider({ id: 'org.probe.entity' });
aios.registerTool({ name: 'create-entity', parameters: { name: { type: 'string' }, properties: { type: 'object', description: "the entity's properties" } } }, (p) => p);
aios.registerTool({ name: 'whole', parameters: { properties: { a: { type: 'string' }, b: true } } }, (p) => p);
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
}
