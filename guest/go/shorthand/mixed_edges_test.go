package shorthand

import (
	"strings"
	"testing"
)

// TestMixedWithKeywordRefused: the shorthand with a schema keyword
// written beside the property schemas ({"query": {...}, "limit": {...},
// "required": ["query"]}) was returned as a whole schema because of the
// keyword, a schema with no properties at all (query and limit unknown
// keywords): native.JSONSchema and a Go guest's tool took any params. It
// is an error naming the properties and the keyword, as the Python SDK's
// load error does; a whole schema of keywords ($ref beside $defs) is
// still returned as given.
func TestMixedWithKeywordRefused(t *testing.T) {
	str := map[string]any{"type": "string"}
	for _, c := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"query": str, "limit": map[string]any{"type": "integer"}, "required": []any{"query"}},
			`mixes property schemas (limit, query) with the schema keyword "required"`},
		{map[string]any{"query": str, "description": "search arguments"},
			`mixes property schemas (query) with the schema keyword "description"`},
		{map[string]any{"query": str, "required": []any{"query"}, "description": "d"},
			`mixes property schemas (query) with the schema keyword "description"`},
	} {
		got, err := Expand(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Expand(%v) = %v, %v; want an error %q", c.in, got, err, c.want)
		}
	}
	ref := map[string]any{"$ref": "#/$defs/p", "$defs": map[string]any{"p": str}, "description": "d", "not": map[string]any{"type": "null"}}
	if got, err := Expand(ref); err != nil || got["$ref"] != "#/$defs/p" {
		t.Errorf("Expand(%v) = %v, %v; want it as given", ref, got, err)
	}
}
