package schema

import (
	"strings"
	"testing"
)

// TestScriptPropertyEscapes: ECMA-262 property escapes with a name,
// \p{Script=Greek}, \p{sc=Han}, \p{General_Category=Letter}, \p{gc=Lu}
// (the u flag's forms, which JSON Schema 2020-12 patterns use), were
// refused at registration as "not valid regex" (regexp2 reads only the
// bare \p{Greek}); they are read as ECMA-262 reads them. Script_Extensions
// is refused saying why, and a failure names the pattern as written.
func TestScriptPropertyEscapes(t *testing.T) {
	cases := []struct {
		pattern, value string
		valid          bool
	}{
		{`^\p{Script=Greek}+$`, "αβγ", true},
		{`^\p{Script=Greek}+$`, "abc", false},
		{`^\p{sc=Han}+$`, "漢字", true},
		{`^\P{sc=Han}+$`, "漢字", false},
		{`^[\p{sc=Latin}\d]+$`, "ab12", true},
		{`^\p{General_Category=Letter}+$`, "é", true},
		{`^\p{gc=Lu}$`, "a", false},
		{`^\\p{sc=Han}$`, `\p{sc=Han}`, true}, // an escaped backslash, then the letters as they are
		{`^x=\p{L}$`, "x=é", true},
	}
	for _, c := range cases {
		for _, doc := range []map[string]any{
			{"type": "string", "pattern": c.pattern},
			{"type": "object", "patternProperties": map[string]any{c.pattern: true}, "additionalProperties": false},
		} {
			v, err := Compile("t@1.0.0 parameters", doc)
			if err != nil {
				t.Errorf("%s: %v", c.pattern, err)
				continue
			}
			var val any = c.value
			if doc["type"] == "object" {
				val = map[string]any{c.value: int64(1)}
			}
			err = v.Validate(val)
			if (err == nil) != c.valid {
				t.Errorf("%v on %q: valid=%v, want %v (%v)", doc, c.value, err == nil, c.valid, err)
			}
			if err != nil && doc["type"] == "string" && !strings.Contains(err.Error(), c.pattern[1:6]) {
				t.Errorf("%s: error %q does not name the pattern as written", c.pattern, err)
			}
		}
	}
	_, err := Compile("t@1.0.0 parameters", map[string]any{"type": "string", "pattern": `^\p{scx=Deva}+$`})
	if err == nil || !strings.Contains(err.Error(), "Script_Extensions is not supported") || !strings.Contains(err.Error(), "/pattern") {
		t.Errorf("scx: %v, want a refusal saying Script_Extensions is not supported, at /pattern", err)
	}
}
