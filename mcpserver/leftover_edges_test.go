package mcpserver

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A message that is not JSON was refused with only "parse error: the line
// is not JSON" (stdio) or "the body is not JSON" (HTTP), where the host's
// own /rpc says what the decoder found and at which byte: a client writing
// JSON by hand had to hunt for the fault. Both say it now.
func TestParseErrorSaysWhere(t *testing.T) {
	const msg = `{"jsonrpc":"2.0","id":1,"method":"tools/list",}`
	_, code, text, _ := check([]byte(msg + "\n"))
	if code != jsonrpc.CodeParseError || !strings.Contains(text, "invalid character '}'") || !strings.Contains(text, "at byte 47") {
		t.Errorf("stdio: %d %q; want -32700 naming the character and byte 47", code, text)
	}
	p := parsePOST([]byte("  " + msg))
	if p.code != jsonrpc.CodeParseError || !strings.Contains(p.err, "invalid character '}'") || !strings.Contains(p.err, "at byte 49") {
		t.Errorf("HTTP: %d %q; want -32700 naming the character and byte 49", p.code, p.err)
	}
	p = parsePOST([]byte(`{"a":`))
	if !strings.Contains(p.err, "unexpected end of JSON input") {
		t.Errorf("HTTP, cut body: %q; want it to say the input ended", p.err)
	}
}
