package server

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestInfoVersionMatchesSearch: a provider that declares no version
// (a plain JS file without aios.provider({version})) is reported as 0.0.0
// by search, and info must say the same (it said "").
func TestInfoVersionMatchesSearch(t *testing.T) {
	ts := newTestServer(t, "", false)
	p := native.New(abi.ProviderInfo{ID: "org.test.nover"})
	p.MustRegister(abi.ToolDef{Name: "nover", Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
	if err := ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	ts.startDiscovery(t)
	c := dial(t, ts)
	ctx := context.Background()
	var sr struct{ Adapters []AdapterSummary }
	if err := c.Call(ctx, "aios/registry.search", map[string]any{"query": "nover"}, &sr); err != nil {
		t.Fatal(err)
	}
	if len(sr.Adapters) != 1 || sr.Adapters[0].Version != UnversionedAdapter {
		t.Fatalf("search: %+v", sr.Adapters)
	}
	var info struct {
		Adapter struct{ ID, Version string }
	}
	if err := c.Call(ctx, "aios/registry.info", map[string]any{"adapter_id": "org.test.nover"}, &info); err != nil {
		t.Fatal(err)
	}
	if info.Adapter.Version != UnversionedAdapter {
		t.Fatalf("info adapter.version = %q, search says %q", info.Adapter.Version, UnversionedAdapter)
	}
}

// TestUnknownMemberHint: a misspelt member of a method's params
// ("argument" for tools/call's "arguments") was refused with only
// `unknown field "argument"`; the refusal now names the closest member and
// lists those the method takes.
func TestUnknownMemberHint(t *testing.T) {
	ts := newTestServer(t, "", false)
	c := dial(t, ts)
	ctx := context.Background()
	err := c.Call(ctx, "tools/call", map[string]any{"name": "echo", "argument": map[string]any{"value": 1}}, nil)
	if code, _ := rpcCode(err); code != -32602 || !strings.Contains(err.Error(), `did you mean "arguments"?`) || !strings.Contains(err.Error(), "known: name, arguments") {
		t.Fatalf("tools/call with argument: %v", err)
	}
	err = c.Call(ctx, "aios/registry.search", map[string]any{"querry": "x"}, nil)
	if code, _ := rpcCode(err); code != -32602 || !strings.Contains(err.Error(), `did you mean "query"?`) {
		t.Fatalf("search with querry: %v", err)
	}
}
