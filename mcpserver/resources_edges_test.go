package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/host"
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

// TestLargeBinaryObjectReadKeepsSession: a binary object under
// limits.max_result_bytes (16 MiB) whose base64 passes 16 MiB — the
// longest message a go-sdk client reads (its stdio line and SSE event
// limits, and this server's own stdio input) — was sent whole: the
// client refused the line and closed its session, every later request
// failing. Now such a read is TooLarge, naming the object, its size and
// the limit, its audit record says so, and the session goes on.
func TestLargeBinaryObjectReadKeepsSession(t *testing.T) {
	h, s := newSpaceHost(t, "agents:\n  mcp:\n    grants: [\"CallTool(*)\", \"ReadSpace(docs)\"]\n")
	data := make([]byte, 13<<20) // 17.3 MiB as base64
	for i := range data {
		data[i] = byte(i*7 + i>>8)
	}
	id, err := h.Spaces().Put("docs", data)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cs := connectStdio(t, s)
	_, err = cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: spaceURI("docs", id)})
	if err == nil || !strings.Contains(err.Error(), "TooLarge") || !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), "16 MiB") {
		t.Fatalf("read of a 13 MiB binary object: %v; want TooLarge naming it and the 16 MiB limit", err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("the session ended after the read: %v", err)
	}
	lastRead(t, h, cs, s, func(rec map[string]any) {
		if rec["outcome"] != "TooLarge" {
			t.Errorf("audit record of the read: %v, want TooLarge", rec["outcome"])
		}
	})
}

// TestLongObjectIDReadKeepsSession: resources/read of a URI whose id is
// megabytes long was refused with a message holding the whole id, twice
// (message and data), so the answer passed the 16 MiB a go-sdk client
// reads and the client closed its session; the read's audit record held
// it too. Now the id is cut in the message, as the store's own
// message cuts it.
func TestLongObjectIDReadKeepsSession(t *testing.T) {
	h, s := newSpaceHost(t, "agents:\n  mcp:\n    grants: [\"CallTool(*)\", \"ReadSpace(docs)\"]\n")
	ctx, cs := connectStdio(t, s)
	_, err := cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "aios-space://docs/sha256:" + strings.Repeat("a", 9<<20)})
	if err == nil || !strings.Contains(err.Error(), "InvalidParams") || len(err.Error()) > 4096 {
		t.Fatalf("read of a 9 MiB id: %.300v (%d bytes); want a short InvalidParams", err, len(fmt.Sprint(err)))
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("the session ended after the read: %v", err)
	}
	lastRead(t, h, cs, s, func(rec map[string]any) {
		if msg := fmt.Sprint(rec["error"]); rec["outcome"] != "InvalidParams" || len(msg) > 4096 {
			t.Errorf("audit record of the read: %v, error of %d bytes", rec["outcome"], len(msg))
		}
	})
}

// lastRead closes the session, the server and the host (flushing the
// audit log) and checks the last record of a resources/read.
func lastRead(t *testing.T, h *host.Host, cs *mcpsdk.ClientSession, s *Server, check func(map[string]any)) {
	t.Helper()
	_ = cs.Close()
	_ = s.Close()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	var last map[string]any
	for _, rec := range auditRecords(t, h) {
		if rec["tool"] == host.SpaceReadTool {
			last = rec
		}
	}
	if last == nil {
		t.Fatal("no audit record of the read")
	}
	check(last)
}

// The space of an aios-space URI is its host, which RFC 3986 makes
// case-insensitive, and space names are lower-case: a client that wrote
// aios-space://DOCS/<id> (or normalised hosts to upper case) was refused
// with "invalid space name". It names the space docs now.
func TestSpaceURIHostCaseInsensitive(t *testing.T) {
	h, s := newSpaceHost(t, resourcesConfig)
	id, err := h.Spaces().Put("docs", []byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	for _, uri := range []string{"aios-space://DOCS/" + id, "AIOS-SPACE://Docs/" + id} {
		r, err := s.readSpaceResource(context.Background(), "mcp", uri)
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if len(r.Contents) != 1 || r.Contents[0].Text != "hello" {
			t.Fatalf("read %s: %+v", uri, r.Contents)
		}
	}
}
