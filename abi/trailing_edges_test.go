package abi

import (
	"strings"
	"testing"
)

// TestJSONTrailingBracket: the JSON codec refused data after a
// message or value, except a closing bracket or brace (json.Decoder.More
// is false before one), so `{"a":1}},"b":2}` read as {"a":1}: a JSON
// guest's ToolRegister or host-call request with one brace too many in its
// middle lost what followed it without a word (docs/abi.md refuses
// malformed messages), and so did `aios-host call`'s params (read by
// UnmarshalJSONValue). Anything but white space after the
// value is refused now.
func TestJSONTrailingBracket(t *testing.T) {
	for _, s := range []string{`{"a":1}]`, `{"a":1}}`, `{"a":1}},"b":2}`, `[1]]`, `{"a":1} x`} {
		var v any
		if err := UnmarshalJSONValue([]byte(s), &v); err == nil || !strings.Contains(err.Error(), "trailing data") {
			t.Errorf("UnmarshalJSONValue(%s) = %v, %v; want an error saying there is trailing data", s, v, err)
		}
	}
	var reg ToolRegister
	msg := `{"format":1,"provider":{"id":"org.example.x"},"tools":[{"name":"a"}]}],"extra":{}}`
	if err := JSON.Unmarshal([]byte(msg), &reg); err == nil {
		t.Errorf("a ToolRegister followed by ],… decoded: %+v", reg)
	}
	var v any
	if err := UnmarshalJSONValue([]byte(" {\"a\":1} \n"), &v); err != nil {
		t.Errorf("white space after the value: %v", err)
	}
}
