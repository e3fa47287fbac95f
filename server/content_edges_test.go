package server

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
	"github.com/aios-host/aios-host/server/jsonrpc"
)

// tools/call's content is "an MCP-style text rendering" of the value, but a
// string was rendered as its JSON: a summary's two lines came as the text
// "\"line 1\nline 2\"" (quoted, its newline escaped), where the MCP
// server gives the string itself. A string is its own text; any other
// value is its JSON.
func TestToolsCallStringContentIsTheText(t *testing.T) {
	ts := newTestServer(t, "", false)
	p := native.New(abi.ProviderInfo{ID: "org.test.text", Version: "1.0.0"})
	p.MustRegister(abi.ToolDef{Name: "lines", Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "line 1\nline \"2\"", nil })
	if err := ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	c := dial(t, ts)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"lines", map[string]any{}, "line 1\nline \"2\""},
		{"echo", map[string]any{"value": "x"}, `{"value":"x"}`},
	} {
		var res jsonrpc.ToolsCallResult
		if err := c.Call(context.Background(), "tools/call", map[string]any{"name": tc.tool, "arguments": tc.args}, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 1 || res.Content[0].Type != "text" || res.Content[0].Text != tc.want {
			t.Errorf("%s: content %q; want the text %q", tc.tool, res.Content, tc.want)
		}
	}
}
