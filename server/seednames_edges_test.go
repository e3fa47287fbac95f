package server

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// Seed 000 §10.2 writes a tool call as ToolCallRequest { tool_name, params }
// (abi.ToolCall says tool). tools/call takes MCP's {name, arguments}, and a
// client writing the seed's names was told only `unknown field
// "tool_name" (known: name, arguments, …)`; the error now says which
// member is meant, as it does for a misspelt one.
func TestToolsCallSeedMemberNames(t *testing.T) {
	ts := newTestServer(t, "", false)
	c := dial(t, ts)
	for params, want := range map[string]string{
		`{"tool_name": "echo", "params": {"value": 1}}`: `unknown field "tool_name" (did you mean "name"?`,
		`{"tool": "echo", "arguments": {"value": 1}}`:   `unknown field "tool" (did you mean "name"?`,
		`{"name": "echo", "params": {"value": 1}}`:      `unknown field "params" (did you mean "arguments"?`,
	} {
		err := c.Call(context.Background(), "tools/call", json.RawMessage(params), nil)
		if code, abiCode := rpcCode(err); code != -32602 || abiCode != "InvalidParams" || !strings.Contains(err.Error(), want) {
			t.Errorf("tools/call %s: %v, want %q", params, err, want)
		}
	}
}
