package mcpserver

import (
	"context"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNonUTF8TextObjectMIMEType: resources/read of a text object that is
// not UTF-8 (a Latin-1 file: "café" as 63 61 66 e9) sent its bytes as a
// blob, rightly, but with the sniffed mimeType "text/plain;
// charset=utf-8" (Go's sniffer calls any text UTF-8), so a client decoding
// the blob as its mimeType says got U+FFFD for each such byte. The charset
// is now left out when the bytes are not UTF-8; UTF-8 text keeps it.
func TestNonUTF8TextObjectMIMEType(t *testing.T) {
	h, s := newSpaceHost(t, "agents:\n  mcp:\n    grants: [\"CallTool(*)\", \"ReadSpace(docs)\"]\n")
	latin1 := "caf\xe9 cr\xe8me, na\xefve r\xe9sum\xe9\n"
	for _, tc := range []struct {
		data, mime string
		text       bool
	}{
		{latin1, "text/plain", false},
		{"<html><body>caf\xe9</body></html>", "text/html", false},
		{"café crème\n", "text/plain; charset=utf-8", true},
		{"\xff\xfec\x00a\x00f\x00\xe9\x00", "text/plain; charset=utf-16le", false}, // UTF-16 with its BOM: that charset is right
	} {
		id, err := h.Spaces().Put("docs", []byte(tc.data))
		if err != nil {
			t.Fatal(err)
		}
		r, err := connectInMemory(t, s, nil).ReadResource(context.Background(), &mcpsdk.ReadResourceParams{URI: "aios-space://docs/" + id})
		if err != nil || len(r.Contents) != 1 {
			t.Fatalf("read %q: %+v %v", tc.data, r, err)
		}
		c := r.Contents[0]
		if c.MIMEType != tc.mime {
			t.Errorf("read %q: mimeType %q, want %q", tc.data, c.MIMEType, tc.mime)
		}
		if tc.text && c.Text != tc.data || !tc.text && string(c.Blob) != tc.data {
			t.Errorf("read %q: text %q blob %q", tc.data, c.Text, c.Blob)
		}
		if !tc.text && strings.Contains(c.MIMEType, "utf-8") {
			t.Errorf("read %q: a blob that is not UTF-8 said to be UTF-8 (%s)", tc.data, c.MIMEType)
		}
	}
}
