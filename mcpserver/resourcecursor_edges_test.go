package mcpserver

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResourceCursorNotGivenRefused: a resources/list cursor is the
// base64 of the last URI of the page before, and any base64 of UTF-8 was
// taken as one: a cursor of another list (a tools/list nextCursor sent to
// resources/list by mistake) or any other text answered an empty page
// without nextCursor, so the client took the list for complete, where
// docs/mcp.md says a cursor this server did not give is refused. Such a
// cursor is now -32602 naming it; a page's own nextCursor still works.
func TestResourceCursorNotGivenRefused(t *testing.T) {
	h, s := newSpaceHost(t, resourcesConfig)
	for i := 0; i < resourcePage+2; i++ {
		if _, err := h.Spaces().Put("docs", []byte{byte(i), byte(i >> 8), 'x'}); err != nil {
			t.Fatal(err)
		}
	}
	cs := connectInMemory(t, s, nil)
	ctx := context.Background()
	first, err := cs.ListResources(ctx, nil)
	if err != nil || len(first.Resources) != resourcePage || first.NextCursor == "" {
		t.Fatalf("first page: %d resources, cursor %q, %v", len(first.Resources), first.NextCursor, err)
	}
	second, err := cs.ListResources(ctx, &mcpsdk.ListResourcesParams{Cursor: first.NextCursor})
	if err != nil || len(second.Resources) != 2 || second.NextCursor != "" {
		t.Fatalf("second page: %+v %v", second, err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, cursor := range []string{
		base64.RawURLEncoding.EncodeToString([]byte("zzz")),
		base64.RawURLEncoding.EncodeToString([]byte("echo")), // what a tools/list cursor could hold
		base64.RawURLEncoding.EncodeToString([]byte("aios-space://docs")),
		base64.RawURLEncoding.EncodeToString([]byte("aios-space://docs/sha256:zz")),
		base64.RawURLEncoding.EncodeToString([]byte(tools.Tools[0].Name)),
	} {
		r, err := cs.ListResources(ctx, &mcpsdk.ListResourcesParams{Cursor: cursor})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, cursor) {
			n := -1
			if r != nil {
				n = len(r.Resources)
			}
			t.Errorf("resources/list with cursor %q: %d resources, %v; want -32602 naming it", cursor, n, err)
		}
	}
}
