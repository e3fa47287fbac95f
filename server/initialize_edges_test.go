package server

import (
	"strings"
	"testing"
)

// initialize ignores the members it does not know (client information),
// but took protocol_version given twice (the last: a first "9", which
// the check refuses, passed with a second "0.3.0") and in another case
// (PROTOCOL_VERSION, which encoding/json matches), where every method
// refuses both (names are case-sensitive). So does initialize.
func TestInitializeMemberTwiceOrInAnotherCaseRefused(t *testing.T) {
	ts := newTestServer(t, "", false)
	for _, tc := range []struct{ params, want string }{
		{`{"protocol_version":"9","protocol_version":"0.3.0"}`, `member "protocol_version" is given twice`},
		{`{"Protocol_Version":"0.3.0"}`, `unknown field "Protocol_Version" (member names are case-sensitive: did you mean "protocol_version"?)`},
	} {
		m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+tc.params+`}`)
		e, _ := m["error"].(map[string]any)
		if msg, _ := e["message"].(string); errCode(m) != -32602 || !strings.Contains(msg, tc.want) {
			t.Errorf("initialize %s: %.300v; want -32602 saying %s", tc.params, m, tc.want)
		}
	}
	m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocol_version":"0.3.0","clientInfo":{"name":"x"}}}`)
	if m["result"] == nil {
		t.Fatalf("initialize with client information: %v", m)
	}
}
