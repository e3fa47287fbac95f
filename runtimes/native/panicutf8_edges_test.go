package native_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestPanicWithInvalidUTF8KeepsStack: a tool whose panic value held a
// byte that is not UTF-8 (a panic quoting raw input) put that value as is
// in data.panic, and the host, which refuses text that is not Unicode,
// dropped the whole of the data, the stack with it ("its error data was
// dropped: … $.panic: a string that is not valid UTF-8"). The panic value
// is written with U+FFFD for such bytes, in the message and the data, so
// the stack reaches the caller.
func TestPanicWithInvalidUTF8KeepsStack(t *testing.T) {
	p := native.New(abi.ProviderInfo{ID: "org.example.panicbytes"})
	p.MustRegister(abi.ToolDef{Name: "boom"}, func(context.Context, any, abi.Env) (any, error) { panic("bad token \xff\xfe") })
	_, err := p.Call(context.Background(), &abi.ToolCall{Tool: "boom", Params: map[string]any{}}, nil)
	te, _ := err.(*abi.ToolError)
	if te == nil || te.Code != abi.ProviderCrashed {
		t.Fatalf("%v, want ProviderCrashed", err)
	}
	data, _ := te.Data.(map[string]any)
	pv, _ := data["panic"].(string)
	if !utf8.ValidString(te.Message) || !utf8.ValidString(pv) || !strings.HasPrefix(pv, "bad token ") {
		t.Fatalf("message %q, data %#v: want the panic value as valid UTF-8", te.Message, te.Data)
	}
	if _, err := abi.Normalize(te.Data); err != nil {
		t.Fatalf("the crash's data is not a JSON value the host keeps: %v", err)
	}
}
