package schema

import (
	"testing"
)

// TestPropertyAliases: ECMA-262's u flag takes a binary property by its
// short name (\p{Hex}, \p{space}, \p{Dia}), a Script value by its ISO 15924
// code (\p{Script=Latn}, \p{sc=Grek}), and \p{Assigned} and
// \p{Grapheme_Extend}; regexp2 knew none of them, and a schema using one
// was refused at registration ("unknown unicode category, script, or
// property 'Latn'"). Each is read as ECMA-262 reads it.
func TestPropertyAliases(t *testing.T) {
	for _, c := range []struct {
		pattern, value string
		match          bool
	}{
		{`^\p{Script=Latn}+$`, "abc", true},
		{`^\p{Script=Latn}$`, "α", false},
		{`^\p{sc=Grek}$`, "α", true},
		{`^\p{sc=Hani}$`, "中", true},
		{`^\p{sc=Cyrl}$`, "a", false},
		{`^[\p{sc=Cyrl}\d]+$`, "д1", true},
		{`^\P{sc=Latn}$`, "д", true},
		{`^\p{Hex}+$`, "09afAF", true},
		{`^\p{Hex}$`, "g", false},
		{`^\p{space}$`, "\u00a0", true},
		{`^\P{space}$`, " ", false},
		{`^\p{Dia}$`, "^", true},
		{`^\p{Assigned}$`, "a", true},
		{`^\p{Assigned}$`, "\u0378", false},
		{`^[\p{Assigned}]$`, "😀", true},
		{`^\P{Assigned}$`, "\u0378", true},
		{`^e\p{Gr_Ext}$`, "e\u0301", true},
		{`^\p{Grapheme_Extend}$`, "e", false},
	} {
		v, err := Compile("t@1.0.0 parameters", map[string]any{"type": "string", "pattern": c.pattern})
		if err != nil {
			t.Errorf("pattern %q: %v", c.pattern, err)
			continue
		}
		if got := v.Validate(c.value) == nil; got != c.match {
			t.Errorf("pattern %q against %q: matched %v, want %v", c.pattern, c.value, got, c.match)
		}
	}
	for short := range propertyAliases {
		if _, err := Compile("t", map[string]any{"type": "string", "pattern": `\p{` + short + `}`}); err != nil {
			t.Errorf("\\p{%s}: %v", short, err)
		}
	}
	for code := range scriptAliases {
		if _, err := Compile("t", map[string]any{"type": "string", "pattern": `\p{Script=` + code + `}[\P{sc=` + code + `}]`}); err != nil {
			t.Errorf("Script=%s: %v", code, err)
		}
	}
}
