package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestErrorDetailsBigWholeFloat: an error object's data.details
// writes a whole float from 2^53 up in exponent form, as the server
// writes a result (abi.ForJSON): it left as the integer literal
// 1152921504606847000, which a client reading integers exactly (Python's
// json, this package's client) takes for another number than 2^60.
func TestErrorDetailsBigWholeFloat(t *testing.T) {
	e := FromError(&abi.ToolError{Code: abi.NotFound, Message: "x", Data: map[string]any{"w": float64(1 << 60), "n": int64(1<<53 + 1)}})
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"w":1.152921504606847e+18`, `"n":9007199254740993`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s does not hold %s", b, want)
		}
	}
}
