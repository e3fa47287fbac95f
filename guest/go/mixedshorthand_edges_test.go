package aios

import (
	"strings"
	"testing"
)

// TestShorthandMixedWithKeywordPanics: Parameters in the shorthand with a
// schema keyword beside the property schemas ({"query": {...}, "limit":
// {...}, "required": ["query"]}) went to the host as a whole schema with
// no properties (query and limit unknown keywords), so any params reached
// the handler; a Python tool so declared fails its load. Handle panics
// where the tool is registered, naming the tool, the properties and the
// keyword.
func TestShorthandMixedWithKeywordPanics(t *testing.T) {
	got := registerPanic(t, "probe-mixed", func() {
		Handle(Tool{Name: "probe-mixed", Parameters: map[string]any{
			"query":    map[string]any{"type": "string"},
			"limit":    map[string]any{"type": "integer"},
			"required": []any{"query"},
		}}, func(c *Call, p any) (any, error) { return p, nil })
	})
	want := `aios: tool probe-mixed: its Parameters schema mixes property schemas (limit, query) with the schema keyword "required"`
	if !strings.HasPrefix(got, want) {
		t.Errorf("Handle panicked %q\nwant %q", got, want)
	}
}
