package native_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// newPanicky is a provider as a tool author writes one, in a package of
// its own, with a Typed tool that panics.
func newPanicky() *native.Provider {
	p := native.New(abi.ProviderInfo{ID: "org.example.panicky"})
	p.MustRegister(abi.ToolDef{Name: "boom"}, native.Typed(func(_ context.Context, in map[string]any, _ abi.Env) (any, error) {
		var m map[string]int
		m["x"] = 1
		return nil, nil
	}))
	return p
}

// TestTypedPanicStackIsTheTools: the stack of a Typed tool's panic held a
// frame of native's own Typed wrapper after the tool's, and, the wrapper
// being inlined into the author's constructor, named it as theirs:
// "example.com/tools.New.Typed[...].func2" at "example.com/tools/typed.go:33",
// a file their package does not have. The docs (package native, Errors)
// leave the package's own frames out, as the Go guest SDK leaves out
// HandleFunc's wrapper; the stack now ends with the tool's own frame.
func TestTypedPanicStackIsTheTools(t *testing.T) {
	_, err := newPanicky().Call(context.Background(), &abi.ToolCall{Tool: "boom", Params: map[string]any{}}, nil)
	te, _ := err.(*abi.ToolError)
	if te == nil || te.Code != abi.ProviderCrashed {
		t.Fatalf("%v, want ProviderCrashed", err)
	}
	stack, _ := te.Data.(map[string]any)["stack"].(string)
	if !strings.Contains(stack, "native_test.newPanicky.func1\n") {
		t.Errorf("the stack lacks the handler's frame:\n%s", stack)
	}
	if strings.Contains(stack, "Typed[") || strings.Contains(stack, "typed.go") {
		t.Errorf("the stack holds a frame of native's Typed wrapper:\n%s", stack)
	}
}
