package mcpserver

import (
	"strings"
	"testing"
)

// TestPOSTBodyNotJSONTextRefused: a POST on a session whose body is not
// one JSON text — an invalid UTF-8 byte or an escaped lone surrogate in a
// tool's arguments, a second message after the first, a NUL after it —
// was handed to the go-sdk, which read the first value with U+FFFD in
// place of what the client sent: the tool ran with another string, and
// the second message was dropped without an answer. Such a body is a
// parse error (-32700, 400) naming what is wrong, as a stdio line and
// the host's JSON-RPC socket refuse it, and nothing runs.
func TestPOSTBodyNotJSONTextRefused(t *testing.T) {
	_, base := anonHTTP(t, "")
	a := post(t, base, initBody, nil)
	h := map[string]string{sessionHeader: a.header.Get(sessionHeader), versionHeader: "2025-06-18"}
	post(t, base, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"value":"VALUE"}}}`
	for _, c := range []struct{ name, body, says string }{
		{"invalid UTF-8", strings.Replace(call, "VALUE", "a\xffb", 1), "UTF-8"},
		{"lone surrogate", strings.Replace(call, "VALUE", `a\ud800b`, 1), "surrogate"},
		{"two messages", call + ` {"jsonrpc":"2.0","id":3,"method":"ping"}`, "after top-level value"},
		{"NUL after it", call + "\x00", "after top-level value"},
	} {
		a := post(t, base, c.body, h)
		if a.status != 400 || !strings.Contains(a.body, "-32700") || !strings.Contains(a.body, c.says) || strings.Contains(a.body, `"result"`) {
			t.Errorf("%s: %d %.400s; want 400, -32700 saying %q, and no result", c.name, a.status, a.body, c.says)
		}
	}
	// The session goes on.
	if a := post(t, base, strings.Replace(call, "VALUE", "ok", 1), h); a.status != 200 || !strings.Contains(a.body, `"result"`) {
		t.Errorf("a call after the refusals: %d %.300s", a.status, a.body)
	}
}
