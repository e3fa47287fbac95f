package wasm

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestHostCallJSONNumberBeyondFloatIsInvalidParams: a JSON guest's
// call_tool whose params held a number beyond a float64's range (1e400,
// well-formed JSON) was answered InvalidRequest "malformed request", as if
// the guest's encoder were broken, where docs/abi.md §2 refuses such a
// number in params as InvalidParams, and a MessagePack guest's NaN there is
// InvalidParams (TestHostCallNotJSONArgsNamed). Now it is InvalidParams
// naming the number's path, and the tool is not called.
func TestHostCallJSONNumberBeyondFloatIsInvalidParams(t *testing.T) {
	g := newEdgeGuest(edgeReg)
	ptr, n := pk(g.seg(`{"tool":"t","params":{"a":[1,1e400]}}`))
	g.call = fmt.Sprintf("(call $call_tool %s %s)", ptr, n)
	p := edgeLoad(t, edgeEngines[0], Config{PoolSize: 1}, g.wat())
	env := newFakeEnv(p, 3)
	called := false
	env.tools = map[string]func(any) (any, error){"t": func(params any) (any, error) { called = true; return params, nil }}
	_, err := call(p, env, "t", map[string]any{}, 5*time.Second)
	te, ok := err.(*abi.ToolError)
	if !ok || te.Code != abi.InvalidParams || !strings.Contains(te.Message, "$.params.a[1]") || !strings.Contains(te.Message, "1e400") || strings.Contains(te.Message, "malformed") {
		t.Errorf("%#v; want InvalidParams naming $.params.a[1] and 1e400, not malformed", err)
	}
	if called {
		t.Error("the tool was called")
	}
}
