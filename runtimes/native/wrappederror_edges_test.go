package native_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestWrappedToolErrorKeepsHandlersWords: a native handler that wrapped
// a *abi.ToolError (fmt.Errorf("fetching thumbnails: %w", err) after an
// env.CallTool that failed) gave its caller the inner error alone, code,
// message and data, its own words dropped: the caller read "no object x"
// without what the tool was doing. The Go guest SDK keeps them
// (TestWrappedErrorKeepsCode); the native runtime now does too: the inner
// code and data, the handler's words around the inner message.
func TestWrappedToolErrorKeepsHandlersWords(t *testing.T) {
	inner := &abi.ToolError{Code: abi.NotFound, Message: "no object x", Data: map[string]any{"id": "x"}}
	p := native.New(abi.ProviderInfo{ID: "org.example.wrap"})
	p.MustRegister(abi.ToolDef{Name: "wrapped"}, func(context.Context, any, abi.Env) (any, error) {
		return nil, fmt.Errorf("fetching thumbnails: %w", inner)
	})
	p.MustRegister(abi.ToolDef{Name: "bare"}, func(context.Context, any, abi.Env) (any, error) { return nil, inner })
	for tool, want := range map[string]string{"wrapped": "fetching thumbnails: no object x", "bare": "no object x"} {
		_, err := p.Call(context.Background(), &abi.ToolCall{Tool: tool, Params: map[string]any{}}, nil)
		te, _ := err.(*abi.ToolError)
		if te == nil || te.Code != abi.NotFound || te.Message != want || !reflect.DeepEqual(te.Data, inner.Data) {
			t.Errorf("%s: %#v, want NotFound %q with the inner data", tool, err, want)
		}
	}
	if inner.Message != "no object x" {
		t.Errorf("the inner error was changed: %q", inner.Message)
	}
}
