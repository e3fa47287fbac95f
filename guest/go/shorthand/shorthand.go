// Package shorthand reads a tool's parameters or returns schema by the
// rule every AIOS SDK applies (JS, Python, native Go and the Go guest SDK),
// so that one declared schema gives the same tool in every runtime:
//
//   - a map with a string "type", or with a "properties" map of schemas
//     (maps or booleans) or a string "$schema" (then given "type": "object"
//     when it has no "type"), is a whole JSON Schema; a "properties" map
//     holding another value ({"type": "object"}) is the schema of a
//     parameter named properties, in the shorthand;
//   - so is one with a keyword whose value is not a schema ({"enum":
//     [...]}, {"anyOf": [...]}, {"$ref": "..."}, {"type": ["object",
//     "null"]}), used as given;
//   - any other map is the seed's shorthand, property name → property
//     schema: {"type": "object", "properties", "required"}, where a
//     property is required unless it has a "default" or "optional": true
//     (which is removed); required names are sorted.
//
// The JS (runtimes/js/prelude.js) and Python (sdk/python/aios_sdk) SDKs
// apply the same rule with the same keyword list in their own languages.
package shorthand

import (
	"fmt"
	"maps"
	"sort"
	"strings"
)

// Keywords are the JSON Schema keywords whose values are not schemas
// ("type" too: a type that is not a string, ["object", "null"], marks a
// whole schema as an enum does).
var Keywords = map[string]bool{
	"type": true, "$ref": true, "$id": true, "$anchor": true, "$comment": true, "$dynamicRef": true,
	"enum": true, "const": true, "anyOf": true, "oneOf": true, "allOf": true, "prefixItems": true,
	"required": true, "format": true, "pattern": true, "title": true, "description": true, "default": true,
	"examples": true, "minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"multipleOf": true, "minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
	"uniqueItems": true, "minProperties": true, "maxProperties": true, "dependentRequired": true,
	"nullable": true, "readOnly": true, "writeOnly": true, "deprecated": true,
}

// Expand returns s as a JSON Schema (see the package comment); s itself
// when it is one already. A shorthand property whose value is not a map is
// an error naming it; so is a keyword written beside property schemas
// ({"query": {...}, "required": ["query"]}), which is neither form.
func Expand(s map[string]any) (map[string]any, error) {
	if _, typed := s["type"].(string); typed {
		return s, nil
	}
	_, dialect := s["$schema"].(string)
	if dialect || schemaMap(s["properties"]) {
		if _, ok := s["type"]; ok {
			return s, nil
		}
		return objectTyped(s), nil
	}
	for k, v := range s {
		if _, isMap := v.(map[string]any); !isMap && Keywords[k] {
			if err := mixed(s); err != nil {
				return nil, err
			}
			return s, nil
		}
	}
	properties := make(map[string]any, len(s))
	var required []string
	for name, v := range s {
		ps, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("property %q is a %T, not a schema such as {\"type\": \"string\"}", name, v)
		}
		cp := make(map[string]any, len(ps))
		for k, pv := range ps {
			if k != "optional" {
				cp[k] = pv
			}
		}
		properties[name] = cp
		_, hasDefault := ps["default"]
		if opt, _ := ps["optional"].(bool); !opt && !hasDefault {
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
	return out, nil
}

// Params is Expand for a tool's parameters schema, which takes an object:
// a schema Expand returns without a "type" (one of keywords, {"anyOf":
// [{"required": ["x"]}, …]}, used as given) is given "type": "object" in
// a copy (it took any value, a caller's "hello" reaching the tool as its
// params), and nil is {"type": "object"}.
func Params(s map[string]any) (map[string]any, error) {
	if s == nil {
		return map[string]any{"type": "object"}, nil
	}
	out, err := Expand(s)
	if err != nil {
		return nil, err
	}
	if _, typed := out["type"]; typed {
		return out, nil
	}
	return objectTyped(out), nil
}

// objectTyped is a copy of s with "type": "object".
func objectTyped(s map[string]any) map[string]any {
	out := make(map[string]any, len(s)+1)
	maps.Copy(out, s)
	out["type"] = "object"
	return out
}

// subschemaKeywords are the JSON Schema keywords whose values are schemas,
// or maps of them, and $schema: the Python SDK's _SUBSCHEMA_KEYWORDS.
var subschemaKeywords = map[string]bool{
	"items": true, "additionalItems": true, "additionalProperties": true, "not": true, "if": true,
	"then": true, "else": true, "contains": true, "propertyNames": true, "unevaluatedItems": true,
	"unevaluatedProperties": true, "contentSchema": true, "properties": true, "patternProperties": true,
	"$defs": true, "definitions": true, "dependentSchemas": true, "dependencies": true, "$schema": true,
	"$vocabulary": true,
}

// mixed is the error for a keyword schema (one with a keyword whose
// value is not a schema) whose other members are property schemas: the
// shorthand with a keyword written beside it, {"query": {...},
// "required": ["query"]}, which taken as a whole schema had no
// properties, every params passing. It names the properties and the
// first such keyword in name order, as the Python SDK's load error does.
func mixed(s map[string]any) error {
	var props, kws []string
	for k, v := range s {
		_, isMap := v.(map[string]any)
		switch {
		case Keywords[k] && !isMap:
			kws = append(kws, k)
		case isMap && !Keywords[k] && !subschemaKeywords[k]:
			props = append(props, k)
		}
	}
	if len(props) == 0 {
		return nil
	}
	sort.Strings(props)
	sort.Strings(kws)
	return &MixedError{fmt.Sprintf("mixes property schemas (%s) with the schema keyword %q: write a whole schema, "+
		"{\"type\": \"object\", \"properties\": {...}, %q: ...}, or the property schemas alone "+
		"(a property is required unless it has a \"default\" or \"optional\": true)",
		strings.Join(props, ", "), kws[0], kws[0])}
}

// MixedError is Expand's error for property schemas written beside a
// schema keyword; its text begins "mixes property schemas".
type MixedError struct{ msg string }

func (e *MixedError) Error() string { return e.msg }

// schemaMap reports whether v is a "properties" map of schemas: a map
// whose every value is a map or a boolean.
func schemaMap(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, s := range m {
		switch s.(type) {
		case map[string]any, bool:
		default:
			return false
		}
	}
	return true
}
