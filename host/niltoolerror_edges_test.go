package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// A handler returning a nil *abi.ToolError as its error is a ProviderError
// naming the provider and the tool, now that abi.AsToolError answers such
// an error with a ToolError of its own instead of nil
// (abi.TestNilToolErrorInAnErrorDoesNotPanic).
func TestNilToolErrorFromHandlerNamesTool(t *testing.T) {
	h, err := New(Options{Config: config.Default()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	p := native.New(abi.ProviderInfo{ID: "org.test.nilerr"})
	p.MustRegister(abi.ToolDef{Name: "nilerr", Parameters: native.JSONSchema(nil)},
		func(context.Context, any, abi.Env) (any, error) {
			var te *abi.ToolError
			return nil, te
		})
	if err := h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	_, err = h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "nilerr", Params: map[string]any{}})
	if abi.CodeOf(err) != abi.ProviderError || !strings.Contains(err.Error(), "org.test.nilerr failed nilerr with a nil *ToolError") {
		t.Fatalf("got %v; want ProviderError naming the provider and the tool", err)
	}
}
