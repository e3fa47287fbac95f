package mcpserver

import (
	"strings"
	"testing"
)

// TestSessionlessMetaWithoutHeader: a POST without a session carrying
// the session-less protocol's _meta key (io.modelcontextprotocol/
// protocolVersion) but no Mcp-Protocol-Version header was handed to the
// go-sdk, which read the missing header as 2025-03-26 and answered -32022
// 'protocol version "2025-03-26" is not supported by this server' with
// 2025-03-26 among the supported versions it listed: a version the client
// never sent, refused and offered in one answer. It is answered as any
// request without a session is: 400 -32600, initialize first.
func TestSessionlessMetaWithoutHeader(t *testing.T) {
	_, base := anonHTTP(t, "")
	for _, v := range []string{"2026-07-28", "2025-06-18"} {
		a := post(t, base, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"`+v+`"}}}`, nil)
		code, id := a.errorCode(t)
		if a.status != 400 || code != -32600 || id != float64(5) || strings.Contains(a.body, "2025-03-26") || !strings.Contains(a.body, "initialize") {
			t.Errorf("_meta protocolVersion %s, no header, no session: %d %s; want 400 -32600 with id 5 saying to initialize first", v, a.status, a.body)
		}
	}
	// With the header, the go-sdk still answers the session-less protocol's
	// requests (unsupported here, naming the versions a session can use).
	a := post(t, base, `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, map[string]string{versionHeader: "2026-07-28"})
	if code, _ := a.errorCode(t); a.status != 400 || code != -32022 {
		t.Errorf("a 2026-07-28 request with its header: %d %s, want the go-sdk's -32022", a.status, a.body)
	}
}
