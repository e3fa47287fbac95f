package mcpserver

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestProbeUndeclaredCapabilityMethods: the server declares no prompts
// capability (nor resources with mcp.resources false), yet prompts/list
// answered an empty list, prompts/get -32602 "unknown prompt", and with
// resources off resources/list and resources/templates/list answered
// empty lists. A server answers a method of a capability it did not
// declare as one it does not serve: -32601, as the SDKs' servers do.
func TestProbeUndeclaredCapabilityMethods(t *testing.T) {
	for _, tc := range []struct {
		cfg     string
		methods []string
		served  []string
	}{
		{"", []string{"prompts/list", "prompts/get"}, []string{"resources/list", "resources/templates/list"}},
		{"mcp:\n  resources: false\n", []string{"prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read"}, nil},
	} {
		_, s := newTestHost(t, tc.cfg)
		ss := newStdioSession(t, s)
		ss.initialize("2025-06-18")
		for i, m := range tc.methods {
			id := itoa(i + 1)
			ss.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + m + `","params":{"name":"x","uri":"aios-space://a/b"}}`)
			if l := ss.mustRead(); errorsOf(t, l)[id] != jsonrpc.CodeMethodNotFound || !strings.Contains(l, m) {
				t.Errorf("config %q, %s: %s, want -32601 naming the method", tc.cfg, m, l)
			}
		}
		for i, m := range tc.served {
			id := itoa(100 + i)
			ss.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + m + `"}`)
			if l := ss.mustRead(); errorsOf(t, l)[id] != 0 {
				t.Errorf("config %q, %s: %s, want a result", tc.cfg, m, l)
			}
		}
	}
}
