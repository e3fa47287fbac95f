package conformance

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component"
	"github.com/aios-host/aios-host/host"
)

// jsCallsComponent is a JS provider whose tool calls two tools of the hello
// component (C freestanding, samples/components/hello) through the host:
// `hello` (a WIT record parameter, result<string, string>) and `add`.
const jsCallsComponent = `
aios.provider({ id: 'org.test.js-to-component', capabilities: ['CallTool(*)'] });
aios.registerTool({
  name: 'greet-and-add',
  parameters: { type: 'object', properties: { name: { type: 'string' }, times: { type: 'integer' } }, required: ['name', 'times'] },
}, async (p, ctx) => {
  const greeting = await ctx.callTool('hello', { g: { name: p.name, times: p.times } });
  const sum = await ctx.callTool('add', { a: p.times, b: 40 });
  return { greeting, sum, runtime_chain: 'js -> component' };
});
aios.registerTool({ name: 'greet-error' }, async (p, ctx) => {
  try {
    await ctx.callTool('hello', { g: { name: 'x', times: 0 } });
    return { caught: null };
  } catch (e) {
    return { caught: e.code, message: e.message };
  }
});
`

// TestJSCallsComponent: a JavaScript tool reaches a WebAssembly component's
// tools through the pipeline (issue 6: "calls reach components from the CLI
// and from a JS tool"), and the component's result<_, string> error comes
// back to JS as a ProviderError carrying the component's message.
func TestJSCallsComponent(t *testing.T) {
	compPath, err := artifact(t, "components/hello.wasm")
	if err != nil {
		t.Fatal(err)
	}
	h, _ := newJSHost(t, "")
	cp, err := component.NewLoader(component.Options{}).Load(context.Background(), abi.Source{Path: compPath})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.AddProvider(context.Background(), cp, host.ProviderMeta{Source: compPath, Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	jsPath := filepath.Join(t.TempDir(), "to-component.js")
	if err := os.WriteFile(jsPath, []byte(jsCallsComponent), 0o644); err != nil {
		t.Fatal(err)
	}
	loadFile(t, h, jsPath, abi.Community)

	res, err := h.Call(context.Background(), &abi.ToolCall{Caller: "bench", Tool: "greet-and-add",
		Params: map[string]any{"name": "ab", "times": int64(3)}})
	if err != nil {
		t.Fatal(err)
	}
	m, ok := res.(map[string]any)
	if !ok {
		t.Fatalf("result %T %v, want an object", res, res)
	}
	if m["greeting"] != "hello, ababab" || m["sum"] != int64(43) || m["runtime_chain"] != "js -> component" {
		t.Errorf("result = %v, want greeting \"hello, ababab\", sum 43", m)
	}

	res, err = h.Call(context.Background(), &abi.ToolCall{Caller: "bench", Tool: "greet-error", Params: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	m = res.(map[string]any)
	if m["caught"] != string(abi.ProviderError) {
		t.Errorf("component error seen by JS = %v, want code %s", m, abi.ProviderError)
	}
	if msg, _ := m["message"].(string); !strings.Contains(msg, "times must be positive") {
		t.Errorf("component error message seen by JS = %q, want it to carry the component's E", msg)
	}
}
