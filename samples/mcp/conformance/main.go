// Command conformance is the MCP conformance server: a stdio MCP server
// (go-sdk) offering the conformance tools echo, add, fail, sleep, crash,
// secret and nested (conformance/README.md). conformance/mcp_test.go
// imports it through the MCP bridge (runtimes/mcp), so that the `mcp` row of
// the conformance matrix exercises the bridge end to end: a real child
// process, JSON-RPC over stdio, schema import, result conversion, a process
// that dies mid-call.
//
// `make samples` builds it into build/mcp/conformance-server
// (samples/mcp/build.sh). It imports only the MCP go-sdk and the standard
// library: it stands for any third-party server and must never import
// aios-host packages.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"math"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "aios-conformance", Title: "aios-host MCP conformance server", Version: "1.0.0"}, nil)
	for _, t := range tools {
		s.AddTool(t.tool, t.handle)
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
}

type entry struct {
	tool   *mcp.Tool
	handle mcp.ToolHandler
}

func schema(s string) json.RawMessage { return json.RawMessage(s) }

// valueOut is the output schema of the tools that return {"value": …}-like
// objects: declaring one makes the bridge return structuredContent.
var tools = []entry{
	{&mcp.Tool{Name: "echo", Description: "returns {value: params.value}",
		InputSchema:  schema(`{"type":"object","properties":{"value":{}},"required":["value"]}`),
		OutputSchema: schema(`{"type":"object","properties":{"value":{}},"required":["value"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var p struct {
				Value json.RawMessage `json:"value"`
			}
			if err := decode(req, &p); err != nil {
				return nil, err
			}
			return structured(`{"value":` + string(p.Value) + `}`), nil
		}},
	{&mcp.Tool{Name: "add", Description: "returns {sum: a+b}",
		InputSchema:  schema(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`),
		OutputSchema: schema(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var p struct{ A, B int64 }
			if err := decode(req, &p); err != nil {
				return nil, err
			}
			s := p.A + p.B // the exact sum, or an error: never a wrapped value
			if (s > p.A) != (p.B > 0) {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d + %d does not fit a 64-bit integer", p.A, p.B)}}}, nil
			}
			return structured(fmt.Sprintf(`{"sum":%d}`, s)), nil
		}},
	{&mcp.Tool{Name: "fail", Description: "fails with params.message",
		InputSchema: schema(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var p struct{ Message string }
			if err := decode(req, &p); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "fail: " + p.Message}}}, nil
		}},
	{&mcp.Tool{Name: "sleep", Description: "returns {slept: ms} after ms milliseconds (honours cancellation)",
		InputSchema:  schema(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"]}`),
		OutputSchema: schema(`{"type":"object","properties":{"slept":{"type":"integer"}},"required":["slept"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var p struct{ Ms int64 }
			if err := decode(req, &p); err != nil {
				return nil, err
			}
			// ms times a millisecond past an int64 wrapped negative and
			// fired at once: wait "forever" then.
			d := time.Duration(math.MaxInt64)
			if p.Ms < math.MaxInt64/int64(time.Millisecond) {
				d = time.Duration(p.Ms) * time.Millisecond
			}
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return structured(fmt.Sprintf(`{"slept":%d}`, p.Ms)), nil
		}},
	{&mcp.Tool{Name: "crash", Description: "the server process exits in the middle of the call",
		InputSchema: schema(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		}},
	{&mcp.Tool{Name: "secret", Description: "returns {ok: true}; the bridge config makes it require ReadSpace(secret)",
		InputSchema:  schema(`{"type":"object"}`),
		OutputSchema: schema(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return structured(`{"ok":true}`), nil
		}},
	{&mcp.Tool{Name: "nested", Description: "cannot call back: MCP gives a server no way to call its client's tools",
		InputSchema: schema(`{"type":"object","properties":{"tool":{"type":"string"},"params":{"type":"object"}},"required":["tool","params"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
				Text: "nested: an MCP server cannot call tools of its client (MCP has no server-to-client tool call)"}}}, nil
		}},
}

// decode reads the call's arguments into v.
func decode(req *mcp.CallToolRequest, v any) error {
	args := req.Params.Arguments
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("%s: arguments: %v", req.Params.Name, err)
	}
	return nil
}

// structured is a result whose structuredContent is the JSON text js,
// carried verbatim (integers beyond 2^53 stay exact), with the same text
// as its content block, as the MCP spec recommends.
func structured(js string) *mcp.CallToolResult {
	var buf bytes.Buffer
	_ = json.Compact(&buf, []byte(js))
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: buf.String()}},
		StructuredContent: json.RawMessage(buf.Bytes()),
	}
}
