package python_test

import (
	"reflect"
	"testing"
)

// TestTypeArraySchemaAsGiven: a whole schema whose type is an array and
// which has no "properties" ({"type": ["object", "null"],
// "additionalProperties": {...}}) was read as the shorthand, so the load
// failed calling "type" a parameter whose schema is a list. "type" whose
// value is not a schema is a keyword like enum: the dict is used as
// given, as by the JS, native and Go guest SDKs.
func TestTypeArraySchemaAsGiven(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	p := loadTool(t, h, "ta.py", `
from aios_sdk import tool

@tool(name="ta", parameters={"type": ["object", "null"], "additionalProperties": {"type": "number"}},
      returns={"type": ["object", "null"], "additionalProperties": {"type": "string"}})
def ta(params):
    return None
`)
	want := map[string]any{"type": []any{"object", "null"}, "additionalProperties": map[string]any{"type": "number"}}
	wantRet := map[string]any{"type": []any{"object", "null"}, "additionalProperties": map[string]any{"type": "string"}}
	tools := p.Describe().Tools
	if len(tools) != 1 || !reflect.DeepEqual(tools[0].Parameters, want) || !reflect.DeepEqual(tools[0].Returns, wantRet) {
		t.Fatalf("tools %#v, want parameters %#v and returns %#v", tools, want, wantRet)
	}
}
