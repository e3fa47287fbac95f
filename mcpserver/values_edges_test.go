package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestBigWholeFloatText: a tool result holding a float from 2^53 up
// to 1e21 is written in the text content in exponent form, so a client
// reading integers exactly (Python's json, the aios bridge, which decodes
// the text block to recover exact integers) reads the float. encoding/json
// wrote 2^60 as 1152921504606847000, which such a client reads as another
// number, an integer.
func TestBigWholeFloatText(t *testing.T) {
	h, s := newTestHost(t, exportCfg)
	p := native.New(abi.ProviderInfo{ID: "org.probe.floats", Name: "floats", Runtime: abi.RuntimeNative})
	p.MustRegister(abi.ToolDef{Name: "pat-floats", Parameters: map[string]any{"type": "object"},
		Returns: map[string]any{"type": "object", "properties": map[string]any{"f": map[string]any{"type": "number"}}}},
		func(context.Context, any, abi.Env) (any, error) { return map[string]any{"f": float64(1 << 60)}, nil })
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "probe", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	waitExported(t, s, "pat-floats")
	cs := connectInMemory(t, s, nil)
	sres, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "pat-floats", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if sres.IsError || len(sres.Content) != 1 || sres.Content[0].(*mcpsdk.TextContent).Text != `{"f":1.152921504606847e+18}` {
		t.Fatalf("structured result = %+v", sres)
	}
	if b, _ := json.Marshal(sres.StructuredContent); string(b) != `{"f":1152921504606847000}` && string(b) != `{"f":1.152921504606847e+18}` {
		t.Fatalf("structuredContent %s", b)
	}
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"value":[1.152921504606847e+18,9007199254740993]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("result = %+v", res)
	}
	text := res.Content[0].(*mcpsdk.TextContent).Text
	if want := `{"value":[1.152921504606847e+18,9007199254740993]}`; text != want {
		t.Fatalf("text %s, want %s", text, want)
	}
}
