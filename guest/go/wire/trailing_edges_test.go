package wire

import (
	"strings"
	"testing"
)

// TestFromJSONTrailingBracket: FromJSON refused trailing data after
// the value, except a closing bracket or brace (json.Decoder.More is false
// before one), so `{"a":1}}` and `{"a":1}]` read as {"a":1}, whatever
// followed: the Go guest SDK's aios.Schema, which promises to panic on
// malformed JSON, took a literal with one brace too many in its middle,
// `{"type":"object","properties":{…}}},"required":["a"]}`, as a schema
// without its "required". Anything but white space after the value is
// refused now.
func TestFromJSONTrailingBracket(t *testing.T) {
	for _, s := range []string{`{"a":1}]`, `{"a":1}}`, `{"a":1}},"b":2}`, `[1]]`, `1]`, `{"a":1} x`} {
		if v, err := FromJSON([]byte(s)); err == nil || !strings.Contains(err.Error(), "after the value") {
			t.Errorf("FromJSON(%s) = %v, %v; want an error saying there is data after the value", s, v, err)
		}
	}
	for _, s := range []string{`{"a":1}`, " {\"a\":1} \n\t", `[1]`, `1`} {
		if _, err := FromJSON([]byte(s)); err != nil {
			t.Errorf("FromJSON(%q): %v", s, err)
		}
	}
}
