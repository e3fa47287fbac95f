package native_test

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// A zero native.Provider (declared as a var or &native.Provider{} instead of
// with New) panicked with a nil pointer dereference in Describe, Call and
// Register (its tool table was only made by New), and a host given one said
// only "its Describe method panicked". Now a zero Provider is an empty one:
// Describe lists no tools, Call is NotFound naming the tool, Register adds
// the tool, and Call then serves it.
func TestZeroProviderIsEmptyNotPanic(t *testing.T) {
	var p native.Provider
	if reg := p.Describe(); reg == nil || len(reg.Tools) != 0 {
		t.Fatalf("Describe of a zero provider = %+v, want an empty registration", reg)
	}
	_, err := p.Call(context.Background(), &abi.ToolCall{Tool: "echo"}, nil)
	if abi.CodeOf(err) != abi.NotFound {
		t.Fatalf("Call of a zero provider: err = %v, want NotFound", err)
	}
	if err := p.Register(abi.ToolDef{Name: "echo"}, func(ctx context.Context, params any, env abi.Env) (any, error) {
		return params, nil
	}); err != nil {
		t.Fatalf("Register on a zero provider: %v", err)
	}
	if reg := p.Describe(); len(reg.Tools) != 1 || reg.Tools[0].Name != "echo" {
		t.Fatalf("Describe after Register = %+v, want the echo tool", reg)
	}
	res, err := p.Call(context.Background(), &abi.ToolCall{Tool: "echo", Params: "hi"}, nil)
	if err != nil || res != "hi" {
		t.Fatalf("Call echo = %v, %v; want hi", res, err)
	}
}
