package mcpserver

import (
	"context"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestJSONObjectMIMEType: a Space object holding a JSON object or array
// (what tools write most) was read as "text/plain; charset=utf-8": Go's
// sniffer never says application/json, and the text branch for it was
// never taken. A whole JSON object or array is application/json now;
// other text, and JSON scalars, stay text/plain.
func TestJSONObjectMIMEType(t *testing.T) {
	h, s := newSpaceHost(t, "agents:\n  mcp:\n    grants: [\"CallTool(*)\", \"ReadSpace(docs)\"]\n")
	for _, tc := range []struct{ data, mime string }{
		{`{"a": [1, 2, {"b": null}]}`, "application/json"},
		{"  \n[1, 2, 3]\n", "application/json"},
		{`{"a": 1`, "text/plain; charset=utf-8"},
		{`"just a string"`, "text/plain; charset=utf-8"},
		{"{ not json }", "text/plain; charset=utf-8"},
	} {
		id, err := h.Spaces().Put("docs", []byte(tc.data))
		if err != nil {
			t.Fatal(err)
		}
		r, err := connectInMemory(t, s, nil).ReadResource(context.Background(), &mcpsdk.ReadResourceParams{URI: "aios-space://docs/" + id})
		if err != nil || len(r.Contents) != 1 {
			t.Fatalf("read %q: %+v %v", tc.data, r, err)
		}
		if c := r.Contents[0]; c.MIMEType != tc.mime || c.Text != tc.data {
			t.Errorf("read %q: mimeType %q text %q, want %q as text", tc.data, c.MIMEType, c.Text, tc.mime)
		}
	}
}
