package mcpserver

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A line that is not valid UTF-8 is a parse error, as on the host's own
// JSON-RPC socket: encoding/json read each invalid byte as U+FFFD, so
// {"a\xff":1,"a\xfe":2} in a tool's arguments became one member name
// twice and a member was lost without a word.
func TestStdioInvalidUTF8Refused(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	ss.send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"a\xff\":1,\"a\xfe\":2}}}")
	line := ss.mustRead()
	if got := errorsOf(t, line); got["null"] != jsonrpc.CodeParseError || !strings.Contains(line, "UTF-8") {
		t.Fatalf("a line with invalid UTF-8: %s", line)
	}
	// And over HTTP.
	if p := parsePOST([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"arguments\":{\"a\xff\":1}}}")); p.code != jsonrpc.CodeParseError || !strings.Contains(p.err, "UTF-8") {
		t.Fatalf("a POST body with invalid UTF-8: %+v", p)
	}
}
