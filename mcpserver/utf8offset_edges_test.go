package mcpserver

import (
	"fmt"
	"strings"
	"testing"
)

// TestInvalidUTF8SaysWhere: a stdio line or POST body with a byte that is
// not UTF-8 was refused as "not valid UTF-8" without saying where; the
// refusal names the byte and its offset (as the host's socket does).
func TestInvalidUTF8SaysWhere(t *testing.T) {
	msg := "  {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"value\":\"x\xfey\"}}}"
	want := fmt.Sprintf("byte 0xfe at offset %d", strings.IndexByte(msg, 0xfe))
	if _, code, why, _ := check([]byte(msg)); code != -32700 || !strings.Contains(why, want) {
		t.Errorf("stdio: %d %q; want -32700 saying %q", code, why, want)
	}
	if p := parsePOST([]byte(msg)); p.code != -32700 || !strings.Contains(p.err, want) {
		t.Errorf("HTTP: %d %q; want -32700 saying %q", p.code, p.err, want)
	}
}
