package mcpserver

import (
	"encoding/json"
	"testing"
)

// TestEmptyObjectReadHasText: resources/read of an empty Space object
// answered contents holding neither "text" nor "blob" (the go-sdk omits
// an empty text), which MCP requires one of: a client validating the
// result (the TypeScript SDK) refused it. An empty object is now an empty
// "blob" (the go-sdk cannot send an empty "text").
func TestEmptyObjectReadHasText(t *testing.T) {
	h, s := newSpaceHost(t, resourcesConfig)
	id, err := h.Spaces().Put("docs", nil)
	if err != nil {
		t.Fatal(err)
	}
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	ss.send(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"aios-space://docs/` + id + `"}}`)
	var answer struct {
		Result struct {
			Contents []map[string]any `json:"contents"`
		} `json:"result"`
	}
	line := ss.mustRead()
	if err := json.Unmarshal([]byte(line), &answer); err != nil || len(answer.Result.Contents) != 1 {
		t.Fatalf("answer %s: %v", line, err)
	}
	c := answer.Result.Contents[0]
	text, isText := c["text"]
	blob, isBlob := c["blob"]
	if !(isText && text == "") && !(isBlob && blob == "") {
		t.Fatalf("contents %v have neither an empty text nor an empty blob", c)
	}
}
