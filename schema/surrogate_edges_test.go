package schema

import "testing"

// TestSurrogatePairEscapesAreOneCodePoint: a pattern that writes a
// character beyond the BMP as its UTF-16 surrogate pair, \uD83D\uDE00 (as
// JSON.stringify of a JS regex and many published schemas do), matched
// nothing: regexp2 read each half as a lone surrogate, so "😀" failed
// ^\uD83D\uDE00$ and an emoji range [\uD83D\uDE00-\uD83D\uDE4F] refused
// every emoji. Under the u flag ECMA-262 reads a lead and a trail escape
// as the one code point they encode (U+1F600), and so does the host.
func TestSurrogatePairEscapesAreOneCodePoint(t *testing.T) {
	cases := []struct {
		pattern, value string
		valid          bool
	}{
		{`^\uD83D\uDE00$`, "😀", true},
		{`^\ud83d\ude00$`, "😀", true},
		{`^\uD83D\uDE00$`, "😁", false},
		{`^[\uD83D\uDE00-\uD83D\uDE4F]+$`, "😀🙏", true},
		{`^[\uD83D\uDE00-\uD83D\uDE4F]+$`, "👍", false},
		{`^(?:\uD83D\uDE00|x)$`, "x", true},
		{`^\\uD83D\uDE00$`, `\uD83D` + "\uFFFD", false}, // an escaped backslash: no pair
		{`^\u00e9\u0041$`, "éA", true},                  // not surrogates: unchanged
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
				t.Errorf("pattern %s (%v) on %q: valid=%v, want %v (err %v)", c.pattern, doc["type"], c.value, err == nil, c.valid, err)
			}
		}
	}
}
