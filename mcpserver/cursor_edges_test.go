package mcpserver

import (
	"fmt"
	"strings"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLongCursorKeepsSession: a list request's cursor the server did not
// give was quoted whole in the error (%q), where each U+200B (3 bytes
// sent) became \u200b, 7 bytes in the answer: an 8 MiB cursor made an
// answer past the 16 MiB a go-sdk client reads in one message, and the
// client closed its session; so did a resources/read of such a malformed
// aios-space URI. The cursor and the URI are now cut in the message.
func TestLongCursorKeepsSession(t *testing.T) {
	_, s := newSpaceHost(t, resourcesConfig)
	ctx, cs := connectStdio(t, s)
	cursor := strings.Repeat("\u200b", 8<<20/3)
	check := func(method string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "invalid cursor") || len(err.Error()) > 4096 {
			t.Fatalf("%s with an 8 MiB cursor: %.200v (%d bytes); want a short invalid cursor error", method, err, len(err.Error()))
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatalf("the session ended after %s: %v", method, err)
		}
	}
	_, err := cs.ListTools(ctx, &mcpsdk.ListToolsParams{Cursor: cursor})
	check("tools/list", err)
	_, err = cs.ListResources(ctx, &mcpsdk.ListResourcesParams{Cursor: cursor})
	check("resources/list", err)
	_, err = cs.ListResourceTemplates(ctx, &mcpsdk.ListResourceTemplatesParams{Cursor: cursor})
	check("resources/templates/list", err)
	_, err = cs.ReadResource(ctx, &mcpsdk.ReadResourceParams{URI: "aios-space:" + cursor})
	if err == nil || !strings.Contains(err.Error(), "resource URI") || len(err.Error()) > 4096 {
		t.Fatalf("resources/read of an 8 MiB malformed URI: %.200v (%d bytes); want a short error", err, len(err.Error()))
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("the session ended after resources/read: %v", err)
	}
}

// TestLongUnknownToolNameKeepsSession: a tools/call of a tool that does
// not exist was answered by the go-sdk's "unknown tool %q", the name
// quoted whole: an 8 MiB name of U+200B (7 bytes each quoted, 3 sent)
// made an answer past the 16 MiB a go-sdk client reads in one message,
// and the client closed its session. The name is now cut in the message.
func TestLongUnknownToolNameKeepsSession(t *testing.T) {
	_, s := newTestHost(t, "")
	ctx, cs := connectStdio(t, s)
	_, err := cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: strings.Repeat("\u200b", 8<<20/3)})
	if err == nil || !strings.Contains(err.Error(), "unknown tool") || len(err.Error()) > 4096 {
		t.Fatalf("tools/call of an 8 MiB name: %.200v (%d bytes); want a short unknown tool error", err, len(fmt.Sprint(err)))
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("the session ended after the call: %v", err)
	}
	if _, err = cs.CallTool(ctx, &mcpsdk.CallToolParams{Name: "nosuch"}); err == nil || !strings.Contains(err.Error(), `unknown tool "nosuch"`) {
		t.Fatalf("tools/call of nosuch: %v", err)
	}
}
