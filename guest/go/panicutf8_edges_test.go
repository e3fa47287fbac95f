package aios

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPanicWithInvalidUTF8KeepsStack: a handler whose panic value held a
// byte that is not UTF-8 (panic("bad token " + string(input[:4])) on bad
// input) sent that value as is in data.panic, where the host refuses text
// that is not Unicode: it dropped the whole of the data, the stack with it
// ("its error data was dropped: … $.panic: a string that is not valid
// UTF-8"), the one part that says where the tool failed. The panic value
// is written with U+FFFD for such bytes, as in the message, and the stack
// reaches the caller.
func TestPanicWithInvalidUTF8KeepsStack(t *testing.T) {
	probeTool(t, "probe-panic-bytes", func() {
		HandleFunc(Tool{Name: "probe-panic-bytes"}, func(c *Call, in map[string]any) (any, error) {
			panic("bad token \xff\xfe")
		})
	})
	_, terr := serveResult(t, "probe-panic-bytes", nil)
	if terr == nil || terr.Code != ProviderCrashed {
		t.Fatalf("%+v, want ProviderCrashed", terr)
	}
	data, _ := terr.Data.(map[string]any)
	p, _ := data["panic"].(string)
	stack, _ := data["stack"].(string)
	if !utf8.ValidString(terr.Message) || !utf8.ValidString(p) || !strings.HasPrefix(p, "bad token ") || !strings.Contains(stack, "panicutf8_edges_test.go") {
		t.Fatalf("message %q, data %#v: want the panic value as valid UTF-8 and the stack naming the test file", terr.Message, terr.Data)
	}
}
