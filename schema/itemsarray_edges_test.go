package schema

import (
	"strings"
	"testing"
)

// TestItemsArraySaysPrefixItems: a tuple written as draft-07 writes it,
// "items": [schemas], in a schema of draft 2020-12 (the default, which
// spells a tuple prefixItems) was refused with the metaschema's "at
// /properties/pt/items: got array, want boolean or object" alone, which
// does not say what to write; the error says so, naming both ways out.
// A property that happens to be called items is not taken for the keyword.
func TestItemsArraySaysPrefixItems(t *testing.T) {
	_, err := Compile("geo@1.0.0 parameters", mustJSON(t, `{"type":"object","properties":{"pt":{"type":"array","items":[{"type":"number"},{"type":"number"}]}}}`))
	if err == nil || !strings.Contains(err.Error(), "at /properties/pt/items: got array, want boolean or object") ||
		!strings.Contains(err.Error(), `"prefixItems"`) || !strings.Contains(err.Error(), "draft-07") {
		t.Errorf("items as an array: %v; want the error at /properties/pt/items to name prefixItems and draft-07", err)
	}
	_, err = Compile("geo@1.0.0 parameters", mustJSON(t, `{"type":"object","properties":{"items":[1]}}`))
	if err == nil || strings.Contains(err.Error(), "prefixItems") {
		t.Errorf("a property called items: %v; want it refused without the prefixItems hint", err)
	}
	if _, err := Compile("geo@1.0.0 parameters", mustJSON(t, `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"number"}]}`)); err != nil {
		t.Errorf("items as an array under draft-07: %v", err)
	}
}
