package mcpserver

import (
	"strings"
	"testing"
)

// TestInitializeAfterSessionlessRequest: over stdio the go-sdk serves a
// request of the session-less 2026-07-28 protocol (its _meta names the
// version and the client's capabilities) before any initialize, and takes
// the session's parameters from it; an initialize after it was refused as
// `duplicate "initialize" received`, though the client had sent none. The
// refusal says what happened: the connection follows the 2026-07-28
// protocol since that request. A second initialize of a client that did
// send one is still a duplicate.
func TestInitializeAfterSessionlessRequest(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if l := ss.mustRead(); !strings.Contains(l, `"structuredContent":{"sum":3}`) {
		t.Fatalf("2026-07-28 call: %s", l)
	}
	ss.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	l := ss.mustRead()
	if !strings.Contains(l, `"code":-32600`) || strings.Contains(l, "duplicate") || !strings.Contains(l, "2026-07-28") ||
		!strings.Contains(l, "io.modelcontextprotocol/protocolVersion") {
		t.Errorf("initialize after a 2026-07-28 request: %s, want -32600 saying the connection follows 2026-07-28 since a request's _meta named it", l)
	}
	ss.send(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if l := ss.mustRead(); !strings.Contains(l, `"code":-32600`) || !strings.Contains(l, "duplicate") {
		t.Errorf("a second initialize: %s, want -32600 duplicate", l)
	}
	ss.ping(4)

	// A client that initialized first and sends initialize again (its
	// first initialize's id again).
	ss2 := newStdioSession(t, s)
	ss2.initialize("2025-06-18")
	ss2.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if l := ss2.mustRead(); !strings.Contains(l, `"code":-32600`) || !strings.Contains(l, "duplicate") {
		t.Errorf("a second initialize: %s, want -32600 duplicate", l)
	}
}
