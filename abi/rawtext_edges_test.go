package abi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestRawMessageNotUnicodeRefused: a json.RawMessage in a value (a native
// tool's result or error data passing JSON text on) was read by
// encoding/json, which makes an invalid UTF-8 byte and an escaped lone
// surrogate ("\ud800") U+FFFD: the text changed without a word, and two
// member names ("\udc00", "\udc01") became one, a member lost, where the
// same string given as a Go string is refused naming its path
// (docs/abi.md). Such text is refused now, naming the path, the offset
// and what is wrong; a surrogate pair is one character, as before.
func TestRawMessageNotUnicodeRefused(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`{"a":"\ud800"}`, `$.r: a json.RawMessage that is not Unicode text: it holds \ud800 at offset 6`},
		{`{"\udc00":1,"\udc01":2}`, `$.r: a json.RawMessage that is not Unicode text: it holds \udc00 at offset 2`},
		{"{\"a\":\"x\xffy\"}", `$.r: a json.RawMessage that is not Unicode text: byte 0xff at offset 7 is not UTF-8`},
	} {
		_, err := Normalize(map[string]any{"r": json.RawMessage(c.raw)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error saying %q", c.raw, err, c.want)
		}
	}
	v, err := Normalize(map[string]any{"r": json.RawMessage(`{"a":"\ud83d\ude00"}`)})
	if want := map[string]any{"r": map[string]any{"a": "😀"}}; err != nil || !reflect.DeepEqual(v, want) {
		t.Errorf("a surrogate pair: %#v %v, want %#v", v, err, want)
	}
}
