package native_test

import (
	"context"
	"fmt"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

type greetIn struct {
	Name string `json:"name"`
}

type greetOut struct {
	Greeting string `json:"greeting"`
}

// A provider with one typed tool. The host validates params against
// Parameters before the handler runs; Typed decodes them into greetIn.
func Example() {
	p := native.New(abi.ProviderInfo{ID: "org.example.greeter", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{
		Name:        "greet",
		Version:     "1.0.0",
		Description: "Greets someone by name",
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"name": map[string]any{"type": "string"}},
			"required":   []any{"name"},
		},
	}, native.Typed(func(ctx context.Context, in greetIn, env abi.Env) (greetOut, error) {
		return greetOut{Greeting: "hello, " + in.Name}, nil
	}))

	// Normally the host calls the provider; called directly here.
	res, err := p.Call(context.Background(), &abi.ToolCall{Tool: "greet", Params: map[string]any{"name": "Ada"}}, nil)
	fmt.Println(res, err)
	// Output: map[greeting:hello, Ada] <nil>
}
