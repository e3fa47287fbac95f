package mcpserver

import (
	"strings"
	"testing"
)

// TestCallWithoutToolNameSaysSo: a tools/call without params.name (or with
// "") is -32602 saying the name is missing, not `unknown tool ""`, which
// reads as if a tool called "" had been removed.
func TestCallWithoutToolNameSaysSo(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	for i, params := range []string{`{"arguments":{}}`, `{"name":"","arguments":{}}`} {
		ss.send(`{"jsonrpc":"2.0","id":` + itoa(i+1) + `,"method":"tools/call","params":` + params + `}`)
		a := ss.mustRead()
		if !strings.Contains(a, `"code":-32602`) || !strings.Contains(a, `tools/call needs params.name`) {
			t.Errorf("params %s: %s", params, a)
		}
	}
}
