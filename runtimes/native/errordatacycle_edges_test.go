package native

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestErrorDataCycleIsNotFatal: a handler's *abi.ToolError whose Data
// holds itself (a map[string]any put inside itself, a mistake in the
// tool's bookkeeping) killed the whole host process, "fatal error: stack
// overflow", which no recover catches: the error's data was copied with
// abi.Copy, which followed the cycle for ever, before anything judged its
// depth. The call fails with the tool's own code and message; the data,
// not a JSON value, is the host's to drop, naming why.
func TestErrorDataCycleIsNotFatal(t *testing.T) {
	cyc := map[string]any{"list": []any{[]byte("raw")}}
	cyc["self"] = cyc
	p := New(abi.ProviderInfo{ID: "org.test.cycle"})
	p.MustRegister(abi.ToolDef{Name: "cycle"}, func(context.Context, any, abi.Env) (any, error) {
		return nil, &abi.ToolError{Code: abi.NotFound, Message: "no such row", Data: cyc}
	})
	_, err := p.Call(context.Background(), &abi.ToolCall{Tool: "cycle", Params: map[string]any{}}, nil)
	te, _ := err.(*abi.ToolError)
	if te == nil || te.Code != abi.NotFound || !strings.Contains(te.Message, "no such row") {
		t.Fatalf("err %v; want the tool's NotFound", err)
	}
	if _, nerr := abi.Normalize(abi.Copy(te.Data)); nerr == nil || !strings.Contains(nerr.Error(), "deeper") {
		t.Errorf("the data of the error: Normalize says %v; want it refused as nested too deep", nerr)
	}
	if _, ok := cyc["list"].([]any)[0].([]byte); !ok {
		t.Errorf("the handler's own data was changed: %#v", cyc["list"])
	}
}
