package schema

import "testing"

// JSON Schema 2020-12 (core §6.4): patterns "SHOULD be built with the "u"
// flag (or equivalent) to provide Unicode support"; the official test
// suite's optional/ecmascript-regex.json expects \p{Letter} to match é.
// Without the flag, ECMA-262 reads \p{L} as the literal "p{L}", so a name
// pattern such as ^\p{L}+$ refused every name.
func TestProbeUnicodePatterns(t *testing.T) {
	cases := []struct {
		pattern, value string
		valid          bool
	}{
		{`^\p{L}+$`, "héllo", true},
		{`^\p{L}+$`, "p{L}", false},
		{`\p{Letter}cole`, "l'école", true},
		{`^\p{digit}+$`, "৪২", true},
		{`^\P{L}$`, "1", true},
		{`^\u{1F600}$`, "😀", true},
		{`^\w$`, "é", false},
		{`^\d+$`, "৪২", false},
		{`^\cC$`, "\u0003", true},
		{`^abc$`, "abc\n", false},
		{`^\s$`, "\u2003", true},
	}
	for _, c := range cases {
		v, err := Compile("t@1.0.0", map[string]any{"type": "string", "pattern": c.pattern})
		if err != nil {
			t.Errorf("%s: %v", c.pattern, err)
			continue
		}
		if err := v.Validate(c.value); (err == nil) != c.valid {
			t.Errorf("pattern %s, value %q: valid=%v, want %v (%v)", c.pattern, c.value, err == nil, c.valid, err)
		}
		pp, err := Compile("t@1.0.0", map[string]any{"type": "object", "patternProperties": map[string]any{c.pattern: true}, "additionalProperties": false})
		if err != nil {
			t.Errorf("%s: %v", c.pattern, err)
			continue
		}
		if err := pp.Validate(map[string]any{c.value: int64(1)}); (err == nil) != c.valid {
			t.Errorf("patternProperties %s, key %q: valid=%v, want %v (%v)", c.pattern, c.value, err == nil, c.valid, err)
		}
	}
}
