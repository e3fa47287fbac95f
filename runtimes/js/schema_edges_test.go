package js

import (
	"reflect"
	"testing"
)

// A whole schema with a "properties" object and a type that is not a
// string ({type: ['object', 'null'], properties: {...}}) is used as given
// by the Python, native and Go guest SDKs; the JS SDK read it as the
// shorthand and refused its "type" as a property that is not a schema.
func TestTypeListWithPropertiesAsGiven(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "tl.js", `
aios.provider({ id: 'org.probe.tl' });
aios.registerTool({ name: 'tl', parameters: { type: ['object', 'null'], properties: { x: { type: 'string' } } } }, (p) => p);
`)
	want := map[string]any{"type": []any{"object", "null"}, "properties": map[string]any{"x": map[string]any{"type": "string"}}}
	for _, tl := range p.Describe().Tools {
		if tl.Name == "tl" {
			if !reflect.DeepEqual(tl.Parameters, want) {
				t.Fatalf("parameters %#v, want %#v", tl.Parameters, want)
			}
			return
		}
	}
	t.Fatal("tool tl not registered")
}
