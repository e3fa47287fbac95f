package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// A param of the wrong JSON type was reported in Go's words ("json: cannot
// unmarshal string into Go struct field searchParams.limit of type int"),
// naming a Go struct a JSON-RPC client cannot know. It names the member and
// the JSON types.
func TestParamTypeErrorInJSONTerms(t *testing.T) {
	var sp struct {
		Limit        int      `json:"limit"`
		Capabilities []string `json:"capabilities"`
		Deep         struct {
			On bool `json:"on"`
		} `json:"deep"`
	}
	for _, tc := range []struct{ params, want string }{
		{`{"limit":"10"}`, `invalid params: limit: want integer, got string`},
		{`{"capabilities":"streaming"}`, `invalid params: capabilities: want array, got string`},
		{`{"deep":{"on":1}}`, `invalid params: deep.on: want boolean, got number`},
		{`{"extra":1}`, `invalid params: unknown field "extra"`},
	} {
		e := decodeParams(json.RawMessage(tc.params), &sp)
		if e == nil {
			t.Fatalf("%s accepted", tc.params)
		}
		if msg := e.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "Go struct") || strings.Contains(msg, "json: ") {
			t.Errorf("%s: error %q, want %q", tc.params, msg, tc.want)
		}
	}
}
