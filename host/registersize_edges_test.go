package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// A WASM, JS or Python provider's registration is one message of at most
// 64 MiB (runtimes.wasm.max_message_bytes, the workers' frame limit); an
// in-process provider's (native Go, an embedder's abi.Provider) had no
// bound: descriptions, tags, examples and schemas of any size were kept
// and served in every tools/list, registry search and MCP answer. The
// host now refuses a registration above the same 64 MiB, naming the
// provider, its source and the limit; one below it is served.
func TestRegistrationSizeBounded(t *testing.T) {
	te := newTestHost(t, nil)
	ctx := context.Background()
	big := native.New(abi.ProviderInfo{ID: "org.test.huge"})
	desc := strings.Repeat("d", 1<<20)
	for i := range 65 {
		big.MustRegister(abi.ToolDef{Name: "t" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + string(rune('a'+i/26)), Description: desc},
			func(context.Context, any, abi.Env) (any, error) { return nil, nil })
	}
	err := te.h.AddProvider(ctx, big, ProviderMeta{Source: "huge.go"})
	if abi.CodeOf(err) != abi.InvalidRequest || !strings.Contains(err.Error(), "org.test.huge") || !strings.Contains(err.Error(), "huge.go") ||
		!strings.Contains(err.Error(), "67108864") {
		t.Fatalf("a registration of 65 MiB: %v, want InvalidRequest naming the provider, its source and the limit", err)
	}
	if len(err.Error()) > 1000 {
		t.Fatalf("the error quotes the registration: %d bytes", len(err.Error()))
	}
	// Schemas count too.
	props := map[string]any{}
	for i := range 70 {
		props[strings.Repeat("p", 8)+string(rune('a'+i%26))+string(rune('a'+i/26))] = map[string]any{"type": "string", "description": desc}
	}
	wide := native.New(abi.ProviderInfo{ID: "org.test.wide"})
	wide.MustRegister(abi.ToolDef{Name: "wide", Parameters: map[string]any{"type": "object", "properties": props}},
		func(context.Context, any, abi.Env) (any, error) { return nil, nil })
	if err := te.h.AddProvider(ctx, wide, ProviderMeta{}); abi.CodeOf(err) != abi.InvalidRequest || !strings.Contains(err.Error(), "org.test.wide") {
		t.Fatalf("a schema of 70 MiB: %v, want InvalidRequest naming the provider", err)
	}
	// A megabyte description is below it.
	ok := native.New(abi.ProviderInfo{ID: "org.test.fine"})
	ok.MustRegister(abi.ToolDef{Name: "fine", Description: desc}, func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
	if err := te.h.AddProvider(ctx, ok, ProviderMeta{}); err != nil {
		t.Fatal(err)
	}
}
