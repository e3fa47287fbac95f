package mcpserver

import (
	"context"
	"io"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestLargeStructuredResultKeepsSession: a tool result under
// limits.max_result_bytes (16 MiB) goes out twice when the tool has an
// object return schema (its JSON as text, and structuredContent), so a 9
// MiB result made an 18 MiB message, over the 16 MiB a go-sdk client
// reads in one: the client closed its session, every later request
// failing. Now such a result is a TooLarge tool error naming the tool,
// the size and the limit, and the session goes on.
func TestLargeStructuredResultKeepsSession(t *testing.T) {
	h, s := newTestHost(t, "")
	p := native.New(abi.ProviderInfo{ID: "org.test.big"})
	p.MustRegister(abi.ToolDef{Name: "big", MCPExportable: true, Parameters: map[string]any{"type": "object"},
		Returns: map[string]any{"type": "object", "properties": map[string]any{"data": map[string]any{"type": "string"}}}},
		func(context.Context, any, abi.Env) (any, error) {
			return map[string]any{"data": strings.Repeat("a", 9<<20)}, nil
		})
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	waitExported(t, s, "big")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); inW.Close(); outR.Close() })
	go func() { _ = s.Run(ctx, StdioTransport(inR, outW)); outW.Close() }()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t"}, nil).Connect(ctx, &mcpsdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	r, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "big"})
	if err != nil {
		t.Fatalf("call of a tool with a 9 MiB structured result: %v; want a TooLarge tool error", err)
	}
	if text := r.Content[0].(*mcpsdk.TextContent).Text; !r.IsError || !strings.HasPrefix(text, "TooLarge") || !strings.Contains(text, "big") || !strings.Contains(text, "16 MiB") {
		t.Fatalf("result isError %v %.200q; want TooLarge naming the tool and the 16 MiB limit", r.IsError, text)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("the session ended after the call: %v", err)
	}
}
