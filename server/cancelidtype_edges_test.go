package server

import (
	"strings"
	"testing"
)

// notifications/cancelled sent as a request with a requestId of another
// type than a string or a number (true, an object: the whole request)
// was answered "requestId is required", of a member the client had sent.
// It now says what requestId must be and what it got; a requestId left
// out or null is still "required".
func TestCancelRequestIDOfWrongTypeSaysSo(t *testing.T) {
	ts := newTestServer(t, "", false)
	for _, c := range []struct{ id, want string }{
		{`true`, "requestId must be the id (a string or a number) of the request to cancel, sent on this connection (got true)"},
		{`{"id":"r1"}`, `requestId must be the id (a string or a number) of the request to cancel, sent on this connection (got {"id":"r1"})`},
		{`["r1"]`, `(got ["r1"])`},
		{`null`, "requestId is required"},
	} {
		m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled","params":{"requestId":`+c.id+`}}`)
		e, _ := m["error"].(map[string]any)
		if errCode(m) != -32602 || e == nil || !strings.Contains(e["message"].(string), c.want) {
			t.Errorf("requestId %s: %v; want -32602 saying %q", c.id, m, c.want)
		}
	}
	m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled","params":{}}`)
	if e, _ := m["error"].(map[string]any); e == nil || !strings.Contains(e["message"].(string), "requestId is required") {
		t.Errorf("no requestId: %v; want it said to be required", m)
	}
}
