package native

import (
	"github.com/aios-host/aios-host/guest/go/shorthand"
)

// JSONSchema is the Go SDK's counterpart of the seed's json_schema! macro
// (seed 000 §9.3): it turns a map of property schemas into a parameters
// schema, with the rule the Python and JavaScript SDKs apply to the same
// shorthand, so that one set of parameters gives one schema whichever
// runtime registers it (§9.1):
//
//	Parameters: native.JSONSchema(map[string]any{
//		"object_id": map[string]any{"type": "string"},
//		"max_words": map[string]any{"type": "integer", "default": 200},
//	})
//
// gives {"type": "object", "properties": {...}, "required": ["object_id"]}:
// a property is required unless it has a "default" or "optional": true (the
// "optional" member is removed); required names are sorted. A map that
// already is a whole schema (a string "type" or "$schema", or a
// "properties" map of schemas: the JS and Python SDKs' rule) is returned as it is,
// with "type": "object" added when it has no type (so is one of keywords
// without a type, {"anyOf": [...]}: params are an object), and nil gives
// {"type": "object"}. A property whose schema is not a
// map is a programming mistake: JSONSchema panics naming it.
func JSONSchema(props map[string]any) map[string]any {
	out, err := shorthand.Params(props)
	if err != nil {
		panic("native.JSONSchema: " + err.Error())
	}
	return out
}
