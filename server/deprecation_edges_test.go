package server

import (
	"context"
	"maps"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
	"github.com/aios-host/aios-host/server/jsonrpc"
)

// A deprecated tool is still served, and the caller is told (seed 000
// §10.3's "deprecation flow"; docs/registry.md: "the host returns ...
// Deprecation (since, message, replacement) to the caller"). tools/call
// answered the value alone, so a client of the socket (and `aios-host call`
// through a running host) never learnt that the tool it called is on its
// way out, nor what replaces it.
func TestToolsCallSaysDeprecated(t *testing.T) {
	ts := newTestServer(t, "", false)
	p := native.New(abi.ProviderInfo{ID: "org.test.old", Version: "1.0.0"})
	p.MustRegister(abi.ToolDef{Name: "old-echo", Version: "1.0.0", Parameters: map[string]any{"type": "object"},
		Deprecation: &abi.Deprecation{Since: "1.0.0", Message: "it echoes badly", Replacement: "echo"}},
		func(context.Context, any, abi.Env) (any, error) { return "old", nil })
	p.MustRegister(abi.ToolDef{Name: "bare-old", Version: "2.0.0", Deprecated: true, Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "bare", nil })
	if err := ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	c := dial(t, ts)
	ctx := context.Background()

	call := func(params map[string]any) map[string]any {
		t.Helper()
		var res map[string]any
		if err := c.Call(ctx, "tools/call", params, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := call(map[string]any{"name": "old-echo"})
	if res["value"] != "old" {
		t.Fatalf("result = %v", res)
	}
	want := map[string]any{"since": "1.0.0", "message": "it echoes badly", "replacement": "echo"}
	if d, _ := res["deprecation"].(map[string]any); !maps.Equal(d, want) {
		t.Fatalf("tools/call of a deprecated tool answered %v, want deprecation %v", res, want)
	}

	// deprecated: true without a note is still said, as an empty note.
	if res := call(map[string]any{"name": "bare-old"}); res["deprecation"] == nil {
		t.Fatalf("tools/call of a tool marked deprecated without a note answered %v, want a deprecation member", res)
	}

	// A tool that is not deprecated says nothing of it.
	if res := call(map[string]any{"name": "echo", "arguments": map[string]any{"value": 1}}); res["deprecation"] != nil {
		t.Fatalf("tools/call of echo answered %v", res)
	}

	// The client's type carries it.
	var typed jsonrpc.ToolsCallResult
	if err := c.Call(ctx, "tools/call", map[string]any{"name": "old-echo"}, &typed); err != nil {
		t.Fatal(err)
	}
	if d := typed.Deprecation; d == nil || *d != (abi.Deprecation{Since: "1.0.0", Message: "it echoes badly", Replacement: "echo"}) {
		t.Fatalf("ToolsCallResult.Deprecation = %+v", typed.Deprecation)
	}
}
