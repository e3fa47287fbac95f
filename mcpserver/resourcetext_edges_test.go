package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMarkupObjectReadFitsAsBlob: a text object whose JSON text passes
// the 16 MiB an answer may hold — HTML or XML of 7 MiB, whose '<', '>' and
// '&' encoding/json writes as six bytes each (\u003c), made 20 MiB — was
// TooLarge ("read it with a tool"), though as base64 (9.3 MiB) it fits, and
// a binary object of 12 MiB was served. Now such an object is sent as a
// blob, with its sniffed MIME type, and only one whose base64 would not fit
// either is TooLarge.
func TestMarkupObjectReadFitsAsBlob(t *testing.T) {
	h, s := newSpaceHost(t, "agents:\n  mcp:\n    grants: [\"CallTool(*)\", \"ReadSpace(docs)\"]\n")
	data := []byte(strings.Repeat("<p>&lt;x&gt;</p>\n", 7<<20/17))
	id, err := h.Spaces().Put("docs", data)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cs := connectStdio(t, s)
	r, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: spaceURI("docs", id)})
	if err != nil {
		t.Fatalf("read of a %d-byte HTML object: %.300v; want its contents (as base64 they fit in an answer)", len(data), err)
	}
	c := r.Contents[0]
	got := c.Blob
	if c.Text != "" {
		got = []byte(c.Text)
	}
	if !bytes.Equal(got, data) || !strings.HasPrefix(c.MIMEType, "text/html") {
		t.Fatalf("read %d bytes (text %d, blob %d) of type %q; want the object's %d bytes, text/html", len(got), len(c.Text), len(c.Blob), c.MIMEType, len(data))
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("the session ended after the read: %v", err)
	}
}

// TestReadWithoutURISaysSo: resources/read without params.uri, or with an
// empty one, was answered "Resource not found" with data {"uri": ""},
// naming no missing parameter: a client with a bug in how it builds the
// request was told the resource does not exist. Now it is -32602 saying
// that params.uri is required and what it looks like.
func TestReadWithoutURISaysSo(t *testing.T) {
	_, s := newSpaceHost(t, resourcesConfig)
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	for i, params := range []string{`{}`, `{"uri":""}`} {
		ss.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":%s}`, 10+i, params))
		line := ss.mustRead()
		var answer struct {
			Error *struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &answer); err != nil || answer.Error == nil {
			t.Fatalf("params %s: answer %s: %v", params, line, err)
		}
		if answer.Error.Code != -32602 || !strings.Contains(answer.Error.Message, "params.uri") || !strings.Contains(answer.Error.Message, "aios-space://") {
			t.Errorf("params %s: error %d %q; want -32602 saying params.uri is missing and what it looks like", params, answer.Error.Code, answer.Error.Message)
		}
	}
}
