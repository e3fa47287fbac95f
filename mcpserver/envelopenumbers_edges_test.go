package mcpserver

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestBridgedStructuredNumbersExact: a bridged tool's envelope sent
// on over MCP (mcpEnvelope) writes its structuredContent's numbers as the
// host holds them, as successResult writes any result: the envelope went
// through the go-sdk's decoding into float64s, so 9007199254740993 left
// as …992, uint64's maximum as 18446744073709552000 and the float 2^60 as
// the integer literal 1152921504606847000.
func TestBridgedStructuredNumbersExact(t *testing.T) {
	v := map[string]any{
		"content": []any{map[string]any{"type": "text", "text": "3 numbers"}},
		"structuredContent": map[string]any{"n": int64(1<<53 + 1), "u": uint64(math.MaxUint64), "m": int64(math.MinInt64),
			"w": float64(1 << 60), "h": 0.5},
	}
	r, ok := mcpEnvelope(v)
	if !ok {
		t.Fatal("not an envelope")
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"n":9007199254740993`, `"u":18446744073709551615`, `"m":-9223372036854775808`, `"w":1.152921504606847e+18`, `"h":0.5`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s does not hold %s", b, want)
		}
	}
}

// TestErrorDataBigWholeFloat: a failed call's data in _meta
// (org.aios/error) writes a whole float from 2^53 up in exponent form, as
// a result's: it left as the integer literal 1152921504606847000, which a
// client reading integers exactly (Python's json) takes for another
// number than 2^60.
func TestErrorDataBigWholeFloat(t *testing.T) {
	r := errorResult(&abi.ToolError{Code: abi.NotFound, Message: "x", Data: map[string]any{"w": float64(1 << 60), "n": int64(1<<53 + 1)}})
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"w":1.152921504606847e+18`, `"n":9007199254740993`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s does not hold %s", b, want)
		}
	}
}
