package abi

import (
	"strings"
	"testing"
)

// TestRegisterSchemaNumberNamesTool: a ToolRegister (a WASM guest's, a JS
// or Python worker's) whose second tool's returns schema held a number
// beyond a float64's range was refused as "$.properties.x.maximum: the
// number "1e400" is beyond …", a path from the message's root that the
// message does not have, naming neither the tool nor which of its schemas.
// The error now names tools[1], the tool and the schema, then the path in it.
func TestRegisterSchemaNumberNamesTool(t *testing.T) {
	msg := `{"format":1,"provider":{"id":"org.example.t"},"tools":[{"name":"a"},` +
		`{"name":"b","returns":{"type":"object","properties":{"x":{"type":"number","maximum":1e400}}}}]}`
	var reg ToolRegister
	err := JSON.Unmarshal([]byte(msg), &reg)
	if err == nil {
		t.Fatal("a schema with 1e400 was taken")
	}
	for _, want := range []string{"tools[1]", `"b"`, "returns", "$.properties.x.maximum", "1e400"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}
