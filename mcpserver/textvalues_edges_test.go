package mcpserver

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestLoneSurrogateRefused: an escaped lone surrogate ("\ud800") is
// refused as a parse error naming it, on stdio and over HTTP, as invalid
// UTF-8 is: encoding/json read it as U+FFFD, so {"\ud800":1,"\udc00":2}
// in a tool's arguments became one member and a value was lost without a
// word. A surrogate pair (an emoji) passes.
func TestLoneSurrogateRefused(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	ss.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"\ud800":1,"\udc00":2}}}`)
	line := ss.mustRead()
	if got := errorsOf(t, line); got["null"] != jsonrpc.CodeParseError || !strings.Contains(line, `\\ud800`) {
		t.Fatalf("a line with a lone surrogate: %s", line)
	}
	ss.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"\ud83d\ude00"}}}`)
	if line := ss.mustRead(); !strings.Contains(line, `"id":8`) || strings.Contains(line, "surrogate") {
		t.Fatalf("a surrogate pair: %s", line)
	}
	if p := parsePOST([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"s":"a\udc00"}}}`)); p.code != jsonrpc.CodeParseError || !strings.Contains(p.err, `\udc00`) {
		t.Fatalf("a POST body with a lone surrogate: %+v", p)
	}
}
