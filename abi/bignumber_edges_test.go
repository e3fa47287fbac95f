package abi

import (
	"encoding/json"
	"strings"
	"testing"
)

// A caller's number that no float64 holds (a million digits, 1e400) was
// refused as `$.value: bad number "999…"`: the whole number quoted (a
// 1 MB error answer, for every ingress: /rpc, MCP, the CLI) and no word
// of what is wrong with it. The message says it is beyond a double's
// range and what to do, and quotes its start and its length only.
func TestHugeNumberNamedNotQuoted(t *testing.T) {
	digits := strings.Repeat("9", 1_000_000)
	for _, tc := range []struct{ num, want string }{
		{digits, "1000000 characters"},
		{"-" + digits, "1000001 characters"},
		{"1e400", "1e400"},
		{"-2.5E+999", "-2.5E+999"},
	} {
		var v any
		err := UnmarshalJSONValue([]byte(`{"value":`+tc.num+`}`), &v)
		if err == nil {
			t.Fatalf("%.20s…: accepted as %v", tc.num, v)
		}
		msg := err.Error()
		if len(msg) > 400 {
			t.Errorf("%.20s…: message of %d bytes quotes the number whole", tc.num, len(msg))
		}
		for _, w := range []string{"$.value", "beyond the range of a 64-bit float", "string", tc.want} {
			if !strings.Contains(msg, w) {
				t.Errorf("%.20s…: %.300q does not say %q", tc.num, msg, w)
			}
		}
		// Normalize of a json.Number (what the servers' decoders give) alike.
		if _, err := Normalize(map[string]any{"value": json.Number(tc.num)}); err == nil || err.Error() != msg {
			t.Errorf("%.20s…: Normalize says %.200v, want %.200q", tc.num, err, msg)
		}
	}
	// A number that is no number at all is still named as such.
	if _, err := Normalize(json.Number("12abc")); err == nil || !strings.Contains(err.Error(), `"12abc" is not a JSON number`) {
		t.Errorf("json.Number(12abc): %v", err)
	}
}
