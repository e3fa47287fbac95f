package host_test

import (
	"context"
	"fmt"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

// Embedding the host in a Go program: build it, add an in-process tool,
// call it as an agent of the config, close it. Plugin files are loaded
// with LoadFile once Options.Loaders holds their runtimes' loaders (see
// cmd/aios-host/hostsetup.go); the host does not close those loaders:
// close them after the host.
func Example() {
	cfg := config.Default() // agent "cli" may call every tool
	h, err := host.New(host.Options{Config: cfg})
	if err != nil {
		panic(err)
	}
	defer h.Close() // closes the providers added to it

	p := native.New(abi.ProviderInfo{ID: "org.example.math", Version: "1.0.0"})
	p.MustRegister(abi.ToolDef{
		Name:        "add",
		Version:     "1.0.0",
		Description: "Adds two integers",
		Parameters: native.JSONSchema(map[string]any{
			"a": map[string]any{"type": "integer"},
			"b": map[string]any{"type": "integer"},
		}),
	}, native.Typed(func(ctx context.Context, in addIn, env abi.Env) (int, error) {
		return in.A + in.B, nil
	}))
	// In-process code is trusted as the host is: System.
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "builtin", Trust: abi.System}); err != nil {
		panic(err)
	}

	res, info, err := h.CallWithInfo(context.Background(), &abi.ToolCall{
		Caller: "cli",
		Tool:   "add",
		Params: map[string]any{"a": 2, "b": 3},
	})
	fmt.Println(res, err, info.Provider, info.Version)

	_, err = h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "add", Params: map[string]any{"a": "two"}})
	fmt.Println(abi.CodeOf(err))
	// Output:
	// 5 <nil> org.example.math 1.0.0
	// InvalidParams
}
