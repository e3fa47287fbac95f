package js

import (
	"reflect"
	"testing"
)

// TestTypeArraySchemaAsGiven: a whole schema whose type is an array and
// which has no "properties" ({type: ['object', 'null'],
// additionalProperties: {...}}) was read as the shorthand, so the load
// failed calling "type" a parameter. "type" whose value is not a schema
// is a keyword like enum: the object is used as given, as by the Python,
// native and Go guest SDKs.
func TestTypeArraySchemaAsGiven(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "ta.js", `
aios.registerTool({ name: 'ta', parameters: { type: ['object', 'null'], additionalProperties: { type: 'number' } },
  returns: { type: ['object', 'null'], additionalProperties: { type: 'string' } } }, () => null);
`)
	want := map[string]any{"type": []any{"object", "null"}, "additionalProperties": map[string]any{"type": "number"}}
	wantRet := map[string]any{"type": []any{"object", "null"}, "additionalProperties": map[string]any{"type": "string"}}
	tools := p.Describe().Tools
	if len(tools) != 1 || !reflect.DeepEqual(tools[0].Parameters, want) || !reflect.DeepEqual(tools[0].Returns, wantRet) {
		t.Fatalf("tools %#v, want parameters %#v and returns %#v", tools, want, wantRet)
	}
}
