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
	ctx, cs := connectStdio(t, s)
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

// TestBridgedEmptyResourceHasBlob: a bridged tool's embedded resource
// with an empty text was passed on with neither "text" nor "blob" (the
// go-sdk omits an empty text), which MCP requires one of: a client
// validating the result (the TypeScript SDK) refused the whole result.
// It is passed on as an empty blob.
func TestBridgedEmptyResourceHasBlob(t *testing.T) {
	h, s := newTestHost(t, exportCfg)
	envelope := map[string]any{"content": []any{
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///empty.txt", "mimeType": "text/plain", "text": ""}},
	}}
	p := native.New(abi.ProviderInfo{ID: "org.test.bridged"})
	p.MustRegister(abi.ToolDef{Name: "pat-empty", Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return envelope, nil })
	if err := h.AddProvider(context.Background(), runtimeAs{p, abi.RuntimeMCP}, host.ProviderMeta{Source: "test"}); err != nil {
		t.Fatal(err)
	}
	waitExported(t, s, "pat-empty")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	ss.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pat-empty","arguments":{}}}`)
	line := ss.mustRead()
	var answer struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Type     string         `json:"type"`
				Resource map[string]any `json:"resource"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &answer); err != nil || answer.Result.IsError || len(answer.Result.Content) != 1 {
		t.Fatalf("answer %s: %v", line, err)
	}
	res := answer.Result.Content[0].Resource
	text, isText := res["text"]
	blob, isBlob := res["blob"]
	if res["uri"] != "file:///empty.txt" || (!(isText && text == "") && !(isBlob && blob == "")) {
		t.Fatalf("resource %v has neither an empty text nor an empty blob", res)
	}
}

// TestLargeToolErrorKeepsSession: a tool's error goes out with its
// message twice (the text, and _meta's ToolError), so a tool failing with
// a 9 MiB message made an 18 MiB answer, over the 16 MiB a go-sdk client
// reads in one message: the client closed its session. The host now cuts
// a provider's message at 64 KiB (TestProviderErrorBounded); error data,
// bounded by limits.max_result_bytes, can still pass 16 MiB where that
// limit is raised: such an error is a TooLarge error naming the tool, its
// code and the size, with the beginning of its message. The session goes
// on after either.
func TestLargeToolErrorKeepsSession(t *testing.T) {
	h, s := newTestHost(t, "limits:\n  max_result_bytes: 67108864\n")
	p := native.New(abi.ProviderInfo{ID: "org.test.bigerr"})
	p.MustRegister(abi.ToolDef{Name: "bigerr", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(_ context.Context, params any, _ abi.Env) (any, error) {
			if m, _ := params.(map[string]any); m["data"] == true {
				return nil, &abi.ToolError{Code: abi.ProviderError, Message: "disk on fire", Data: map[string]any{"dump": strings.Repeat("d", 20<<20)}}
			}
			return nil, abi.Errorf(abi.ProviderError, "disk on fire: %s", strings.Repeat("e", 9<<20))
		})
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	waitExported(t, s, "bigerr")
	ctx, cs := connectStdio(t, s)
	r, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "bigerr", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("call of a tool failing with a 9 MiB message: %v; want a tool error", err)
	}
	if text := r.Content[0].(*mcpsdk.TextContent).Text; !r.IsError || !strings.HasPrefix(text, "ProviderError: disk on fire") || !strings.Contains(text, "cut") || len(text) > 70<<10 {
		t.Fatalf("result isError %v %.300q (%d bytes); want the ProviderError, its message cut", r.IsError, text, len(text))
	}
	r, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "bigerr", Arguments: map[string]any{"data": true}})
	if err != nil {
		t.Fatalf("call of a tool failing with 20 MiB of error data: %v; want a TooLarge tool error", err)
	}
	if text := r.Content[0].(*mcpsdk.TextContent).Text; !r.IsError || !strings.HasPrefix(text, "TooLarge") || !strings.Contains(text, "ProviderError") || !strings.Contains(text, "disk on fire") || len(text) > 4096 {
		t.Fatalf("result isError %v %.300q (%d bytes); want a short TooLarge naming the error's code and its beginning", r.IsError, text, len(text))
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("the session ended after the calls: %v", err)
	}
}
