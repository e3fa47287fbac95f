package mcpserver

import (
	"context"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSpaceSchemeCaseInsensitive: URI schemes are case-insensitive (RFC
// 3986 3.1), but a resources/read of AIOS-SPACE://docs/<id> was not taken
// for a Space object and the go-sdk answered "Resource not found" for an
// object that is there (found by p133); it is read as aios-space:// is.
func TestSpaceSchemeCaseInsensitive(t *testing.T) {
	h, s := newSpaceHost(t, "agents:\n  mcp:\n    grants: [\"CallTool(*)\", \"ReadSpace(docs)\"]\n")
	id, err := h.Spaces().Put("docs", []byte("hello\n"))
	if err != nil {
		t.Fatal(err)
	}
	cs := connectInMemory(t, s, nil)
	for _, uri := range []string{"aios-space://docs/" + id, "AIOS-SPACE://docs/" + id, "Aios-Space://docs/" + id} {
		r, err := cs.ReadResource(context.Background(), &mcpsdk.ReadResourceParams{URI: uri})
		if err != nil || len(r.Contents) != 1 || r.Contents[0].Text != "hello\n" {
			t.Errorf("read %s: %+v %v; want the object", uri, r, err)
		}
	}
}
