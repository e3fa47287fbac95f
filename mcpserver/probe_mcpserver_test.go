package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// A provider's schema is the provider's to write: a parameter schema the
// go-sdk's AddTool panics on (an x-mcp-header annotation on an object
// property, or one that is not a header name) must cost that tool its
// export, not crash the host (sync runs in a goroutine of its own).
func TestProbeBadHeaderAnnotationDoesNotCrash(t *testing.T) {
	h, s := newTestHost(t, "")
	p := native.New(abi.ProviderInfo{ID: "org.test.hdr"})
	for name, prop := range map[string]map[string]any{
		"hdr-object": {"type": "object", "x-mcp-header": "X-A"},
		"hdr-number": {"type": "string", "x-mcp-header": 5},
		"hdr-space":  {"type": "string", "x-mcp-header": "X A"},
	} {
		p.MustRegister(abi.ToolDef{Name: name, MCPExportable: true,
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"a": prop}}},
			func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
	}
	p.MustRegister(abi.ToolDef{Name: "hdr-fine", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.Untrusted}); err != nil {
		t.Fatal(err)
	}
	s.sync() // what the registry goroutine runs on the change
	got := s.Tools()
	if !contains(got, "hdr-fine") {
		t.Errorf("exported = %v, want hdr-fine among them", got)
	}
	for _, n := range []string{"hdr-object", "hdr-number", "hdr-space"} {
		if contains(got, n) {
			t.Errorf("%s exported though the go-sdk refuses its schema", n)
		}
	}
}

// Arguments the go-sdk decoded are JSON: when the host cannot take them
// (nested deeper than it allows) the error says so, not that they are not
// valid JSON.
func TestProbeDeepArgumentsErrorSaysWhy(t *testing.T) {
	_, s := newTestHost(t, "")
	cs := connectInMemory(t, s, nil)
	deep := strings.Repeat("[", 600) + strings.Repeat("]", 600)
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"value":` + deep + `}`)})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcpsdk.TextContent).Text
	if !res.IsError || !strings.HasPrefix(text, "InvalidParams: ") || !strings.Contains(text, "nested deeper than 512 levels") {
		t.Fatalf("result = %s", text)
	}
	if strings.Contains(text, "not valid JSON") {
		t.Errorf("valid JSON arguments reported as not valid JSON: %.120s", text)
	}
}
