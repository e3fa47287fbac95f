package mcpserver

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResourceNotFoundSaysWhich: a resources/read of a URI this server
// does not have was answered with the go-sdk's bare "Resource not found",
// naming neither the URI nor why (a missing object, or a scheme the server
// never serves: file:///etc/passwd, a relative path), the URI only in
// data, which clients do not show. Now the message names the URI and says
// what is wrong; the code (-32602) and data {"uri": …} are as before.
func TestResourceNotFoundSaysWhich(t *testing.T) {
	h, s := newSpaceHost(t, resourcesConfig)
	if _, err := h.Spaces().Put("docs", []byte("hello")); err != nil {
		t.Fatal(err)
	}
	cs := connectInMemory(t, s, nil)
	missing := "aios-space://docs/sha256:" + strings.Repeat("0", 64)
	for _, tc := range []struct {
		uri  string
		want []string
	}{
		{missing, []string{"Resource not found", "sha256:" + strings.Repeat("0", 64), "in space docs"}},
		{"file:///etc/passwd", []string{"Resource not found", `"file:///etc/passwd"`, "aios-space://<space>/<object id>"}},
		{"relative/path", []string{"Resource not found", `"relative/path"`, "aios-space://<space>/<object id>"}},
	} {
		_, err := cs.ReadResource(context.Background(), &mcpsdk.ReadResourceParams{URI: tc.uri})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != mcpsdk.CodeResourceNotFound {
			t.Errorf("read %s: %v, want code %d", tc.uri, err, mcpsdk.CodeResourceNotFound)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(we.Message, w) {
				t.Errorf("read %s: message %q lacks %q", tc.uri, we.Message, w)
			}
		}
		if want := `{"uri":"` + tc.uri + `"}`; string(we.Data) != want {
			t.Errorf("read %s: data %s, want %s", tc.uri, we.Data, want)
		}
	}
}

// TestNotFoundURIWithControlCharKeepsSession: resources/read of a URI
// holding a control character (file:///a\u0001b, or U+007F) ended the
// stdio session: the go-sdk's "Resource not found" writes the URI into its
// data with Go's %q, whose \x01 is no JSON escape, so the answer could not
// be encoded ("marshaling message: … invalid character 'x' in string
// escape code") and the session ended with it. Now the data is JSON: the
// client gets the error with the URI in data, and the session goes on.
func TestNotFoundURIWithControlCharKeepsSession(t *testing.T) {
	_, s := newSpaceHost(t, resourcesConfig)
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	ss.send(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a\u0001b\u007f"}}`)
	l := ss.mustRead()
	if !strings.Contains(l, `"id":1`) || !strings.Contains(l, `"code":-32602`) || !strings.Contains(l, `"data":{"uri":"file:///a\u0001b`+"\x7f"+`"}`) {
		t.Errorf("read of a URI with control characters: %s, want -32602 with the URI in data", l)
	}
	ss.ping(2)
}
