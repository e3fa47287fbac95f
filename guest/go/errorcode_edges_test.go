package aios

import (
	"strings"
	"testing"
)

// TestErrorWithoutCode: `return nil, &aios.Error{Message: "no such
// user"}` (a Code left out) was written as {"code": ""}, which the host
// refuses as a malformed ToolResult: the caller got a ProviderError about
// the guest's protocol, the tool's message lost, and the instance was
// discarded. It is now the tool's ProviderError with its message and data,
// saying the Code was empty, as the pipeline says of a native tool's
// unknown code.
func TestErrorWithoutCode(t *testing.T) {
	probeTool(t, "probe-nocode", func() {
		Handle(Tool{Name: "probe-nocode"}, func(c *Call, p any) (any, error) {
			return nil, &Error{Message: "no such user", Data: map[string]any{"user": "ann"}}
		})
	})
	_, terr := serveResult(t, "probe-nocode", nil)
	if terr == nil || terr.Code != ProviderError || !strings.Contains(terr.Message, "no such user") || !strings.Contains(terr.Message, "Code") {
		t.Fatalf("%+v; want a ProviderError keeping the message and saying the Code is empty", terr)
	}
	if m, _ := terr.Data.(map[string]any); m["user"] != "ann" {
		t.Fatalf("data %#v, want the error's data kept", terr.Data)
	}
}
