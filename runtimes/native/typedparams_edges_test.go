package native

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestTypedParamsMismatchNamesToolAndType: params a Typed handler's type
// could not take were InvalidParams "params do not fit the tool's Go type:
// at /count: …", naming neither the tool nor the type, where a Go guest's
// HandleFunc says "count-words: params do not fit main.In: at /count: …"
// and the host's schema check "params of count-words@1.0.0 violate its
// schema": returned through call_tool, the caller's caller could not tell
// which tool refused. The message now names the tool and the Go type.
func TestTypedParamsMismatchNamesToolAndType(t *testing.T) {
	type countIn struct {
		Count int64 `json:"count"`
	}
	h := Typed(func(context.Context, countIn, abi.Env) (any, error) { return nil, nil })
	_, err := h(context.Background(), map[string]any{"count": "many"}, callEnv{call: &abi.ToolCall{Tool: "count-words"}})
	te, _ := err.(*abi.ToolError)
	if te == nil || te.Code != abi.InvalidParams {
		t.Fatalf("%v, want InvalidParams", err)
	}
	for _, want := range []string{"count-words", "native.countIn", "at /count"} {
		if !strings.Contains(te.Message, want) {
			t.Errorf("message %q does not say %q", te.Message, want)
		}
	}
	// Without an Env (a handler called directly) it is still InvalidParams
	// naming the type.
	if _, err := h(context.Background(), map[string]any{"count": "many"}, nil); abi.CodeOf(err) != abi.InvalidParams || !strings.Contains(err.Error(), "native.countIn") {
		t.Fatalf("%v, want InvalidParams naming the type", err)
	}
}
