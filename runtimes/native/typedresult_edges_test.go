package native

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// callEnv is an Env that knows its call only.
type callEnv struct {
	abi.Env
	call *abi.ToolCall
}

func (e callEnv) Call() *abi.ToolCall { return e.call }

// TestTypedResultNotJSONIsInvalidResult: a Typed handler's result that
// encoding/json refuses (a NaN in a struct field) was a ProviderError
// "tool result is not a JSON value", naming no tool, where the same value
// from a plain handler is the host's InvalidResult "result of <tool> is
// not a JSON value" and a Go guest's HandleFunc result InvalidResult
// naming the tool: the code told the caller the tool failed rather than
// that it answered with something no caller can read. It is InvalidResult
// naming the tool now.
func TestTypedResultNotJSONIsInvalidResult(t *testing.T) {
	type out struct{ F float64 }
	h := Typed(func(context.Context, map[string]any, abi.Env) (out, error) { return out{F: math.NaN()}, nil })
	_, err := h(context.Background(), map[string]any{}, callEnv{call: &abi.ToolCall{Tool: "ratio"}})
	te, _ := err.(*abi.ToolError)
	if te == nil || te.Code != abi.InvalidResult || !strings.Contains(te.Message, "ratio") || !strings.Contains(te.Message, "NaN") {
		t.Fatalf("%v, want InvalidResult naming the tool and the NaN", err)
	}
	// Without an Env (a handler called directly) it is still InvalidResult.
	if _, err := h(context.Background(), map[string]any{}, nil); abi.CodeOf(err) != abi.InvalidResult {
		t.Fatalf("%v, want InvalidResult", err)
	}
}
