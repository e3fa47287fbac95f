package native_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// A native handler's error whose text is not UTF-8 (an os error naming a
// Latin-1 file name, "open caf\xe9.txt: no such file") reached the caller
// with those bytes: a Go embedder got bytes that are not text, and the
// same error written as JSON (MCP, /rpc, the audit log) said something
// else, U+FFFD. A WASM guest's message is made valid text as it is read
// (abi.ValidText); a native tool's is now too, the handler's own
// ToolError left unchanged.
func TestErrorMessageIsText(t *testing.T) {
	own := &abi.ToolError{Code: abi.NotFound, Message: "no caf\xe9"}
	p := native.New(abi.ProviderInfo{ID: "org.example.text"})
	p.MustRegister(abi.ToolDef{Name: "plain"}, func(context.Context, any, abi.Env) (any, error) {
		return nil, errors.New("open caf\xe9.txt: no such file")
	})
	p.MustRegister(abi.ToolDef{Name: "own"}, func(context.Context, any, abi.Env) (any, error) { return nil, own })
	p.MustRegister(abi.ToolDef{Name: "wrapped"}, func(context.Context, any, abi.Env) (any, error) {
		return nil, fmt.Errorf("reading \xff: %w", own)
	})
	for tool, want := range map[string]string{
		"plain":   "open caf\uFFFD.txt: no such file",
		"own":     "no caf\uFFFD",
		"wrapped": "reading \uFFFD: no caf\uFFFD",
	} {
		_, err := p.Call(context.Background(), &abi.ToolCall{Tool: tool, Params: map[string]any{}}, nil)
		te, _ := err.(*abi.ToolError)
		if te == nil || te.Message != want {
			t.Errorf("%s: %#v, want the message %q", tool, err, want)
		}
	}
	if own.Message != "no caf\xe9" {
		t.Errorf("the handler's own error was changed: %q", own.Message)
	}
}
