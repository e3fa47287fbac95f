package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
)

func TestImportTool(t *testing.T) {
	f := false
	tests := []struct {
		name    string
		tool    string // JSON of the MCP tool
		host    string
		hints   bool
		wantErr string
		check   func(t *testing.T, d abi.ToolDef)
	}{
		{name: "plain", tool: `{"name":"echo","description":"d","inputSchema":{"type":"object","properties":{"m":{"type":"string"}}}}`,
			check: func(t *testing.T, d abi.ToolDef) {
				if d.Name != "mcp-s-echo" || d.Description != "d" || d.PermissionLevel != abi.PermissionHigh || d.MCPExportable {
					t.Errorf("def = %+v", d)
				}
			}},
		{name: "title when no description", tool: `{"name":"x","title":"The X","inputSchema":{"type":"object"}}`,
			check: func(t *testing.T, d abi.ToolDef) {
				if d.Description != "The X" {
					t.Errorf("description = %q", d.Description)
				}
			}},
		{name: "missing schema becomes object", tool: `{"name":"x"}`,
			check: func(t *testing.T, d abi.ToolDef) {
				if d.Parameters["type"] != "object" {
					t.Errorf("params = %v", d.Parameters)
				}
			}},
		{name: "http server needs Network(host)", tool: `{"name":"x","inputSchema":{"type":"object"}}`, host: "mcp.example.com",
			check: func(t *testing.T, d abi.ToolDef) {
				if len(d.CapabilityRequired) != 1 || d.CapabilityRequired[0] != "Network(mcp.example.com)" {
					t.Errorf("caps = %v", d.CapabilityRequired)
				}
			}},
		{name: "annotations are not trusted by default", tool: `{"name":"x","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"idempotentHint":true}}`,
			check: func(t *testing.T, d abi.ToolDef) {
				if d.Idempotent || d.PermissionLevel != abi.PermissionHigh || d.LatencyClass != abi.LatencySlow {
					t.Errorf("def = %+v", d)
				}
			}},
		{name: "annotations with trust_hints", hints: true, tool: `{"name":"x","inputSchema":{"type":"object"},"annotations":{"destructiveHint":false,"idempotentHint":true}}`,
			check: func(t *testing.T, d abi.ToolDef) {
				if !d.Idempotent || d.PermissionLevel != abi.PermissionMedium {
					t.Errorf("def = %+v", d)
				}
			}},
		{name: "output schema", tool: `{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`,
			check: func(t *testing.T, d abi.ToolDef) {
				if d.Returns["type"] != "object" {
					t.Errorf("returns = %v", d.Returns)
				}
			}},
		{name: "invalid name", tool: `{"name":"a b","inputSchema":{"type":"object"}}`, wantErr: `tool "a b": invalid tool name`},
		{name: "too long", tool: `{"name":"` + strings.Repeat("a", 130) + `","inputSchema":{"type":"object"}}`, wantErr: "invalid tool name"},
		{name: "non-object schema", tool: `{"name":"x","inputSchema":{"type":"array"}}`, wantErr: "has type array"},
		{name: "schema not an object", tool: `{"name":"x","inputSchema":[1,2]}`, wantErr: "want a JSON object"},
		{name: "schema does not compile", tool: `{"name":"x","inputSchema":{"type":"object","properties":{"a":{"minimum":"zero"}}}}`, wantErr: "does not compile"},
		{name: "bad output schema", tool: `{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"type":7}}`, wantErr: "outputSchema does not compile"},
		// structuredContent is an object: a tool whose outputSchema says
		// otherwise was imported and every call of it failed InvalidResult.
		{name: "non-object output schema", tool: `{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"type":"string"}}`, wantErr: "outputSchema has type string"},
		{name: "output schema of types with object", tool: `{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"type":["object","null"]}}`,
			check: func(t *testing.T, d abi.ToolDef) {
				if d.Returns == nil {
					t.Errorf("returns dropped")
				}
			}},
	}
	_ = f
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tool mcpsdk.Tool
			if err := json.Unmarshal([]byte(tc.tool), &tool); err != nil {
				t.Fatal(err)
			}
			d, err := importTool("s", &tool, tc.host, tc.hints)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, d)
		})
	}
}

func TestResourceToolName(t *testing.T) {
	tests := []struct{ name, uri, want string }{
		{"Greeting", "mem://g", "mcp-s-read-greeting"},
		{"Resource 1", "test://static/resource/1", "mcp-s-read-resource-1"},
		{"", "file:///tmp/A b.txt", "mcp-s-read-file-tmp-a-b.txt"},
		{"--héllo--", "x", "mcp-s-read-h-llo"},
		{"日本語", "mem://docs/ja", "mcp-s-read-mem-docs-ja"}, // a name without ASCII: the URI's
		{"指南", "mem://docs/zh", "mcp-s-read-mem-docs-zh"},
	}
	for _, tc := range tests {
		if got := ResourceToolName("s", &mcpsdk.Resource{Name: tc.name, URI: tc.uri}); got != tc.want {
			t.Errorf("ResourceToolName(%q, %q) = %q, want %q", tc.name, tc.uri, got, tc.want)
		}
	}
}

func TestToolResult(t *testing.T) {
	tests := []struct {
		name       string
		result     string
		structured bool
		want       string // JSON of the value, or the error code
	}{
		{"content", `{"content":[{"type":"text","text":"a"}]}`, false, `{"content":[{"text":"a","type":"text"}]}`},
		{"structured kept beside content", `{"content":[],"structuredContent":{"n":1}}`, false, `{"content":[],"structuredContent":{"n":1}}`},
		{"structured only", `{"content":[],"structuredContent":{"n":1}}`, true, `{"n":1}`},
		{"structured tool without structuredContent", `{"content":[{"type":"text","text":"a"}]}`, true, "InvalidResult"},
		{"big integer exact (carried as text)", `{"content":[{"type":"text","text":"{\"n\":-9007199254740993,\"f\":0.5}"}],"structuredContent":{"n":-9007199254740993,"f":0.5}}`, true, `{"f":0.5,"n":-9007199254740993}`},
		{"a server's mark is not taken", `{"content":[],"structuredContent":{"n":1},"_meta":{"org.aios/structuredContent-text":"guess"}}`, true, `{"n":1}`},
		{"text disagreeing with structuredContent is ignored", `{"content":[{"type":"text","text":"{\"n\":2}"}],"structuredContent":{"n":1}}`, true, `{"n":1}`},
		{"error", `{"isError":true,"content":[{"type":"text","text":"boom"}]}`, false, "ProviderError"},
		{"error without text", `{"isError":true,"content":[]}`, false, "ProviderError"},
		{"aios code in _meta", `{"isError":true,"content":[{"type":"text","text":"Timeout: slow"}],"_meta":{"org.aios/error":{"code":"Timeout","message":"slow"}}}`, false, "Timeout"},
		{"unknown code in _meta", `{"isError":true,"content":[{"type":"text","text":"x"}],"_meta":{"org.aios/error":{"code":"Bogus"}}}`, false, "ProviderError"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// (As the bridge reads it: budget.go carries structuredContent as text.)
			msg, _ := structuredAsText([]byte(`{"jsonrpc":"2.0","id":1,"result":` + tc.result + `}`))
			var resp struct{ Result json.RawMessage }
			var r mcpsdk.CallToolResult
			if err := json.Unmarshal(msg, &resp); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(resp.Result, &r); err != nil {
				t.Fatal(err)
			}
			v, err := toolResult("s", "t", &r, tc.structured)
			if err != nil {
				if string(abi.CodeOf(err)) != tc.want {
					t.Fatalf("err = %v, want %s", err, tc.want)
				}
				return
			}
			b, _ := json.Marshal(v)
			if string(b) != tc.want {
				t.Fatalf("got %s, want %s", b, tc.want)
			}
		})
	}
	if _, err := toolResult("s", "t", nil, false); abi.CodeOf(err) != abi.InvalidResult {
		t.Errorf("nil result: %v", err)
	}
}

func TestContentTextIsBounded(t *testing.T) {
	long := strings.Repeat("é", maxErrorText)
	got := contentText([]mcpsdk.Content{&mcpsdk.TextContent{Text: long}, &mcpsdk.TextContent{Text: "x"}})
	if len(got) > maxErrorText+4 || !strings.HasSuffix(got, "…") {
		t.Fatalf("len %d, suffix %q", len(got), got[len(got)-4:])
	}
}

// FuzzImportTool feeds tools/list entries as a server could send them: the
// conversion never panics, and what it accepts is registrable.
func FuzzImportTool(f *testing.F) {
	for _, s := range []string{
		`{"name":"echo","inputSchema":{"type":"object"}}`,
		`{"name":"a b","inputSchema":{"type":"object"}}`,
		`{"name":"x","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"string"}}}}`,
		`{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`,
		`{"name":"","inputSchema":null}`,
		`{"name":"x","inputSchema":{"type":"object","properties":{"a":{"pattern":"("}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var tool mcpsdk.Tool
		if json.Unmarshal(data, &tool) != nil {
			return
		}
		d, err := importTool("s", &tool, "", true)
		if err != nil {
			return
		}
		if abi.ValidateToolName(d.Name) != nil || d.Parameters == nil {
			t.Fatalf("accepted an unregistrable tool: %+v", d)
		}
	})
}

// FuzzToolResult feeds tools/call answers: conversion never panics and a
// success is a canonical value.
func FuzzToolResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"a"}]}`,
		`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}],"structuredContent":{"a":[1,2.5,null]}}`,
		`{"isError":true,"content":[{"type":"text","text":"x"}]}`,
		`{"content":[],"structuredContent":"just a string"}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, structured bool) {
		var r mcpsdk.CallToolResult
		if json.Unmarshal(data, &r) != nil {
			return
		}
		v, err := toolResult("s", "t", &r, structured)
		if err != nil {
			if abi.CodeOf(err) == "" {
				t.Fatal("error without code")
			}
			return
		}
		if _, err := abi.Normalize(v); err != nil {
			t.Fatalf("result not canonical: %v", err)
		}
	})
}
