package schema

import (
	"strings"
	"testing"
)

// TestRelativeRefToAnotherDocumentRefused: a $ref to a document
// beside the schema ("common.json", "../defs.json#/$defs/x", "/abs.json")
// resolved against the schema's opaque base URI (urn:aios:schema:NAME) to
// the schema itself: "common.json" was the whole parameters schema, and
// "other.json#/$defs/x" this schema's own $defs/x, silently, though
// docs/registry.md says a $ref to anything outside the document is
// refused. It is refused at compile time, naming the reference as written.
func TestRelativeRefToAnotherDocumentRefused(t *testing.T) {
	for _, ref := range []string{"common.json", "other.json#/$defs/x", "/abs/path.json", "../x.json", "sub/dir/y.json#/z"} {
		doc := map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": ref}},
			"$defs": map[string]any{"x": map[string]any{"type": "string"}}}
		v, err := Compile("t@1.0.0 parameters", doc)
		if err == nil {
			t.Errorf("$ref %q compiled (Validate({a: 1}) = %v), want it refused", ref, v.Validate(map[string]any{"a": int64(1)}))
			continue
		}
		file, _, _ := strings.Cut(ref, "#")
		for _, want := range []string{"t@1.0.0 parameters", `"` + strings.TrimPrefix(strings.TrimPrefix(file, "../"), "/") + `"`, "refused", "self-contained"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("$ref %q: error %q does not contain %q", ref, err, want)
			}
		}
	}
	// References inside the document still resolve, with or without an
	// $id of its own, relative ones against that $id too.
	for _, doc := range []string{
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`,
		`{"$id":"tool","type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`,
		`{"$id":"https://example.com/root.json","type":"object","properties":{"a":{"$ref":"item.json"}},"$defs":{"x":{"$id":"item.json","type":"string"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#x"}},"$defs":{"x":{"$anchor":"x","type":"string"}}}`,
	} {
		v, err := Compile("t@1.0.0 parameters", mustJSON(t, doc))
		if err != nil {
			t.Errorf("%s: %v", doc, err)
			continue
		}
		if v.Validate(map[string]any{"a": "s"}) != nil || v.Validate(map[string]any{"a": int64(1)}) == nil {
			t.Errorf("%s: the reference does not resolve to the string schema", doc)
		}
	}
}
