package mcp

import (
	"reflect"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEmptyEmbeddedResourceKeepsText: an MCP tool's embedded resource
// with an empty text reached its JS, Python or WASM caller as
// {"uri": …} with neither text nor blob (the go-sdk omits an empty
// text), which no caller can tell from a malformed one. It keeps
// "text": "", and a resource with text or a blob is unchanged.
func TestEmptyEmbeddedResourceKeepsText(t *testing.T) {
	r := &mcpsdk.CallToolResult{Content: []mcpsdk.Content{
		&mcpsdk.EmbeddedResource{Resource: &mcpsdk.ResourceContents{URI: "file:///empty", MIMEType: "text/plain"}},
		&mcpsdk.EmbeddedResource{Resource: &mcpsdk.ResourceContents{URI: "file:///bin", Blob: []byte{}}},
		&mcpsdk.EmbeddedResource{Resource: &mcpsdk.ResourceContents{URI: "file:///full", Text: "hi"}},
	}}
	v, err := toolResult("s", "t", r, false)
	if err != nil {
		t.Fatal(err)
	}
	content := v.(map[string]any)["content"].([]any)
	res := func(i int) map[string]any { return content[i].(map[string]any)["resource"].(map[string]any) }
	if want := map[string]any{"uri": "file:///empty", "mimeType": "text/plain", "text": ""}; !reflect.DeepEqual(res(0), want) {
		t.Errorf("empty text resource: %v, want %v", res(0), want)
	}
	if _, ok := res(1)["text"]; ok {
		t.Errorf("a blob resource got a text: %v", res(1))
	}
	if res(2)["text"] != "hi" {
		t.Errorf("a text resource: %v", res(2))
	}
}
