package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestServerErrorTextBounded: the text of a server's JSON-RPC
// error reaches the caller bounded as an isError result's text is
// (maxErrorText), not whole: a server answering 256 KiB of error message
// handed it to the caller (and to every peer the error travels to).
func TestServerErrorTextBounded(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"p": p89Config(t, "plain", "p", "bigrpcerr", "bigunknown", "bigiserror")})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.p")
	for _, tc := range []struct {
		tool string
		code abi.ErrorCode
		want string
	}{{"bigrpcerr", abi.ProviderError, "it broke: xxx"}, {"bigunknown", abi.NotFound, "unknown tool yyy"}, {"bigiserror", abi.ProviderError, "failed: zzz"}} {
		_, err := call(t, p, "mcp-p-"+tc.tool, nil, 10*time.Second)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		t.Logf("%s: %d bytes: %.200s", tc.tool, len(msg), msg)
		if abi.CodeOf(err) != tc.code || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: %v, want %s with %q", tc.tool, abi.CodeOf(err), tc.code, tc.want)
		}
		if len(msg) > maxErrorText+512 {
			t.Errorf("%s: the caller's error is %d bytes; the server's text is cut at %d", tc.tool, len(msg), maxErrorText)
		}
	}
}
