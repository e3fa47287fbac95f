package schema

import (
	"strconv"
	"strings"
	"testing"
)

// TestBinaryPropertyEscapes: the binary Unicode properties ECMA-262 reads
// under the u flag that Go has no table of, \p{ASCII}, \p{Any},
// \p{Alphabetic}, \p{Uppercase}, \p{Lowercase}, \p{ID_Start},
// \p{ID_Continue} (and \P), refused a pattern at registration as "unknown
// unicode category, script, or property 'ASCII'"; they are read as their
// Unicode definitions (ASCII: U+0000–U+007F; Alphabetic: L, Nl and
// Other_Alphabetic; …), inside a character class too. A \P of such a
// property inside a class, which the rewrite cannot express, is refused
// saying so.
func TestBinaryPropertyEscapes(t *testing.T) {
	cases := []struct {
		pattern, value string
		valid          bool
	}{
		{`^\p{ASCII}+$`, "abc~", true},
		{`^\p{ASCII}+$`, "abé", false},
		{`^\P{ASCII}+$`, "é漢", true},
		{`^\P{ASCII}+$`, "éa", false},
		{`^[\p{ASCII}é]+$`, "abé", true},
		{`^[^\p{ASCII}]+$`, "é", true},
		{`^[\P{ASCII}x]+$`, "éx", true},
		{`^[\P{ASCII}x]+$`, "éy", false},
		{`^\p{Any}{3}$`, "a😀\n", true},
		{`^\p{Alphabetic}+$`, "abcÉⅫ", true}, // Ⅻ is Nl
		{`^\p{Alphabetic}+$`, "ab1", false},
		{`^\P{Alphabetic}$`, "1", true},
		{`^\p{Uppercase}+$`, "ABⒶ", true}, // Ⓐ is Other_Uppercase
		{`^\p{Uppercase}+$`, "Ab", false},
		{`^\p{Lowercase}+$`, "abªº", true}, // ª, º are Other_Lowercase
		{`^\p{ID_Start}\p{ID_Continue}*$`, "é_1x", true},
		{`^\p{ID_Start}\p{ID_Continue}*$`, "1x", false},
		{`^[\p{ID_Continue}$]+$`, "a$_", true},
		{`^\p{L}+$`, "abc", true}, // untouched
	}
	for _, c := range cases {
		v, err := Compile("t@1.0.0 parameters", map[string]any{"type": "string", "pattern": c.pattern})
		if err != nil {
			t.Errorf("%s: %v", c.pattern, err)
			continue
		}
		err = v.Validate(c.value)
		if (err == nil) != c.valid {
			t.Errorf("%s on %q: valid=%v, want %v (%v)", c.pattern, c.value, err == nil, c.valid, err)
		}
		if err != nil && !strings.Contains(err.Error(), strconv.Quote(c.pattern)) {
			t.Errorf("%s: error %q does not name the pattern as written", c.pattern, err)
		}
	}
	_, err := Compile("t@1.0.0 parameters", map[string]any{"type": "string", "pattern": `^[\P{Alphabetic}x]$`})
	if err == nil || !strings.Contains(err.Error(), `\P{Alphabetic}`) || !strings.Contains(err.Error(), "/pattern") {
		t.Errorf("\\P{Alphabetic} in a class: %v, want a refusal naming it, at /pattern", err)
	}
}
