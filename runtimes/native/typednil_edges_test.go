package native

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// Register refuses a nil Handler, but native.Typed of a nil func gave a
// non-nil Handler: the tool registered, was listed and served, and every
// call of it panicked (ProviderCrashed, a nil func called) far from the
// line that registered it. A typed handler is now checked as an untyped
// one is: Typed(nil) is nil, which Register refuses naming the tool.
func TestTypedNilFuncRefusedAtRegister(t *testing.T) {
	p := New(abi.ProviderInfo{ID: "org.test.typednil"})
	var fn func(context.Context, map[string]any, abi.Env) (string, error)
	err := p.Register(abi.ToolDef{Name: "greet"}, Typed(fn))
	if err == nil || !strings.Contains(err.Error(), `"greet"`) || !strings.Contains(err.Error(), "nil handler") {
		t.Fatalf("Register of Typed(nil): %v, want an error naming the tool's nil handler", err)
	}
	if n := len(p.Describe().Tools); n != 0 {
		t.Fatalf("the refused tool is registered: %d tools", n)
	}
}
