package wasm_test

import (
	"context"
	"fmt"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// A Loader loads core modules (here a sample guest written in C) into
// providers that share its compile cache and deadline watchdog. A host
// calls the providers (host.Options.Loaders); it is called directly here.
// Close the providers, then the Loader (after host.Host.Close, which
// closes the providers it holds).
func ExampleLoader() {
	l, err := wasm.NewLoader(wasm.Options{}) // compiled code kept in memory
	if err != nil {
		panic(err)
	}
	defer l.Close()
	p, err := l.Load(context.Background(), abi.Source{Path: "../../samples/plugins/c-echo.wasm"})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	fmt.Println(p.Describe().Provider.ID)
	res, err := p.Call(context.Background(), &abi.ToolCall{
		Tool:     "c-add",
		Params:   map[string]any{"a": int64(2), "b": int64(3)},
		Deadline: time.Now().Add(time.Second),
	}, nil)
	fmt.Println(res, err)
	// Output:
	// org.aios.samples.c-echo
	// map[sum:5] <nil>
}
