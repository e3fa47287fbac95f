package mcpserver

import (
	"strings"
	"testing"
)

// TestIDOfAnotherTypeSaysWhat: a request whose id is a boolean, an array
// or an object was refused with the go-sdk's "parse error: invalid ID type
// []interface {}" (a Go type, and a parse error in a -32600): the refusal
// says what an MCP id must be and the id the client sent, on stdio, in a
// stdio batch, and over HTTP.
func TestIDOfAnotherTypeSaysWhat(t *testing.T) {
	_, base := anonHTTP(t, "")
	a := post(t, base, initBody, nil)
	h := map[string]string{sessionHeader: a.header.Get(sessionHeader), versionHeader: "2025-06-18"}
	post(t, base, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.initialize("2025-03-26")
	for _, id := range []string{"true", "[1]", `{"a":1}`} {
		body := `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`
		ok := func(got string) bool {
			return strings.Contains(got, "-32600") && strings.Contains(got, "id must be a string or an integer") &&
				strings.Contains(got, strings.ReplaceAll(id, `"`, `\"`)) && !strings.Contains(got, "interface") && !strings.Contains(got, "ID type")
		}
		if a := post(t, base, body, h); a.status != 400 || !ok(a.body) {
			t.Errorf("HTTP, id %s: %d %.300s", id, a.status, a.body)
		}
		ss.send(body)
		if got := ss.mustRead(); !ok(got) {
			t.Errorf("stdio, id %s: %.300s", id, got)
		}
		ss.send("[" + body + "]")
		if got := ss.mustRead(); !strings.Contains(got, "-32600") {
			t.Errorf("stdio batch, id %s: %.300s", id, got)
		}
	}
}
