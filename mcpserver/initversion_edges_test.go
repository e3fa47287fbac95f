package mcpserver

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// initialize without params.protocolVersion, which MCP requires (the
// version the client speaks), was answered as if the client had asked for
// 2025-11-25: a client that left it out by mistake was never told, and got
// the rules of a version it may not speak. It is -32602 naming the member
// and the versions the server speaks, on stdio and over HTTP, and a
// correct initialize after it is served.
func TestInitializeWithoutProtocolVersion(t *testing.T) {
	noVersion := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	emptyVersion := strings.Replace(noVersion, `"capabilities"`, `"protocolVersion":"","capabilities"`, 1)
	wantText := func(answer string) bool {
		return strings.Contains(answer, "protocolVersion") && strings.Contains(answer, "2025-06-18")
	}
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	ss := newStdioSession(t, s)
	for _, body := range []string{noVersion, emptyVersion} {
		ss.send(body)
		if l := ss.mustRead(); errorsOf(t, l)["1"] != jsonrpc.CodeInvalidParams || !wantText(l) {
			t.Errorf("stdio %s: %s, want -32602 naming protocolVersion and the versions spoken", body, l)
		}
	}
	ss.initialize("2025-06-18") // served after the refusals
	ss.ping(2)

	base := newHTTPTestServer(t, s)
	for _, body := range []string{noVersion, emptyVersion} {
		a := post(t, base, body, nil)
		if code, id := a.errorCode(t); code != jsonrpc.CodeInvalidParams || id != float64(1) || !wantText(a.body) {
			t.Errorf("HTTP %s: %d %s, want -32602 naming protocolVersion and the versions spoken", body, a.status, a.body)
		}
	}
}
