package native

import (
	"fmt"
	"sort"
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
// "properties" map: the JS and Python SDKs' rule) is returned as it is,
// with "type": "object" added when it has no type, and nil gives
// {"type": "object"}. A property whose schema is not a
// map is a programming mistake: JSONSchema panics naming it.
func JSONSchema(props map[string]any) map[string]any {
	if props == nil {
		return map[string]any{"type": "object"}
	}
	_, typed := props["type"].(string)
	_, dialect := props["$schema"].(string)
	if typed {
		return props
	}
	if _, whole := props["properties"].(map[string]any); whole || dialect {
		// A whole schema without a string type: as the JS and Python
		// SDKs, used as given with type object.
		if _, ok := props["type"]; ok {
			return props
		}
		out := make(map[string]any, len(props)+1)
		for k, v := range props {
			out[k] = v
		}
		out["type"] = "object"
		return out
	}
	for k, v := range props {
		// A keyword whose value is not a schema ({"enum": [...]},
		// {"anyOf": [...]}, {"$ref": "..."}) makes a whole schema without
		// a type, which a shorthand (all values schemas) cannot be: used
		// as given, as by the JS, Python and Go guest SDKs.
		if _, isMap := v.(map[string]any); !isMap && schemaKeywords[k] {
			return props
		}
	}
	properties := make(map[string]any, len(props))
	var required []string
	for name, v := range props {
		s, ok := v.(map[string]any)
		if !ok {
			panic(fmt.Sprintf("native.JSONSchema: property %q: want a JSON Schema object such as {\"type\": \"string\"}, got %T", name, v))
		}
		cp := make(map[string]any, len(s))
		for k, sv := range s {
			if k != "optional" {
				cp[k] = sv
			}
		}
		properties[name] = cp
		_, hasDefault := s["default"]
		if opt, _ := s["optional"].(bool); !opt && !hasDefault {
			required = append(required, name)
		}
	}
	out := map[string]any{"type": "object", "properties": properties}
	if len(required) > 0 {
		sort.Strings(required)
		req := make([]any, len(required))
		for i, r := range required {
			req[i] = r
		}
		out["required"] = req
	}
	return out
}

// schemaKeywords are the JSON Schema keywords whose values are not schemas
// (see JSONSchema); the same list as the JS, Python and Go guest SDKs'.
var schemaKeywords = map[string]bool{
	"$ref": true, "$id": true, "$anchor": true, "$comment": true, "$dynamicRef": true,
	"enum": true, "const": true, "anyOf": true, "oneOf": true, "allOf": true, "prefixItems": true,
	"required": true, "format": true, "pattern": true, "title": true, "description": true, "default": true,
	"examples": true, "minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"multipleOf": true, "minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
	"uniqueItems": true, "minProperties": true, "maxProperties": true, "dependentRequired": true,
	"nullable": true, "readOnly": true, "writeOnly": true, "deprecated": true,
}
