package mcpserver

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A stdio line over the 16 MiB line limit (a tools/call with 20 MiB of
// arguments) was answered -32600 "message longer than the line limit",
// naming no limit, with id null: the request it held was never answered
// by its id, so a client without a timeout of its own (the go-sdk's has
// none) waited on it for ever. The answer names the limit and what to
// do, carries the request's id when the line gives it before the rest,
// and the session goes on.
func TestStdioLongLineAnswersItsID(t *testing.T) {
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	big := strings.Repeat("a", MaxLineBytes+1024)
	for _, tc := range []struct {
		line, id string
	}{
		{`{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"echo","arguments":{"value":"` + big + `"}}}`, "41"},
		{`{"jsonrpc":"2.0", "method":"tools/call", "id" : "req-7", "params":{"name":"echo","arguments":{"value":"` + big + `"}}}`, `"req-7"`},
		// The id after the arguments: not read, id null.
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"value":"` + big + `"}},"id":43}`, "null"},
		// A nested "id" is not the request's.
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"id":44,"name":"echo","arguments":{"value":"` + big + `"}}}`, "null"},
	} {
		go ss.send(tc.line)
		got := ss.read(60 * time.Second)
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(got), &m); err != nil {
			t.Fatalf("id %s: reply %q: %v", tc.id, got, err)
		}
		if string(m.ID) != tc.id || m.Error.Code != -32600 {
			t.Errorf("reply %s, want -32600 with id %s", got, tc.id)
		}
		for _, w := range []string{strconv.Itoa(MaxLineBytes), "16 MiB", "Space"} {
			if !strings.Contains(m.Error.Message, w) {
				t.Errorf("%q does not say %q", m.Error.Message, w)
			}
		}
	}
	// The session goes on.
	ss.ping(50)
}
