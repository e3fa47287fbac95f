package wire

import (
	"bytes"
	"strings"
	"testing"
)

// hasReplacement reports whether a string or member name of v holds
// U+FFFD.
func hasReplacement(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.ContainsRune(x, '\uFFFD')
	case []any:
		for _, e := range x {
			if hasReplacement(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			if strings.ContainsRune(k, '\uFFFD') || hasReplacement(e) {
				return true
			}
		}
	}
	return false
}

// FuzzUnmarshalGuestJSON: guest JSON text is refused, never read with a
// character replaced: a value it accepts holds U+FFFD only where the text
// did (the character or its escape).
func FuzzUnmarshalGuestJSON(f *testing.F) {
	for _, s := range []string{`{"a":"\ud800"}`, `{"\udc00x":1}`, "{\"a\":\"\xff\"}", `["\ud83d\ude00", "\uFFFD"]`, `"\\ud800"`,
		`{"a":"\ud83d\u0041"}`, `"\ud83d\ud83d\ude00"`, "\"\xef\xbf\xbd\"", `[1, {"k": "\u00e9"}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if err := UnmarshalGuestJSON(data, &v); err != nil {
			return
		}
		if !hasReplacement(v) {
			return
		}
		lower := bytes.ToLower(data)
		if !bytes.Contains(data, []byte("\uFFFD")) && !bytes.Contains(lower, []byte(`\ufffd`)) {
			t.Fatalf("%q accepted as %#v: U+FFFD the text did not hold", data, v)
		}
	})
}
