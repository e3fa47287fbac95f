package server

import (
	"fmt"
	"strings"
	"testing"
)

// TestNullInStringListNamed: a null in search's capabilities or
// subscribe's events was read as "" and refused as an empty string
// (`capabilities[0] "" is neither a card feature … nor a capability
// (capability "": …)`), which the client never sent. Now it is a type
// error at its index, as a number there is.
func TestNullInStringListNamed(t *testing.T) {
	ts := seedServer(t)
	for _, tc := range []struct{ method, params, want string }{
		{"aios/registry.search", `{"capabilities":["streaming",null]}`, "capabilities[1]: want string, got null"},
		{"aios/registry.search", `{"capabilities":[ null ]}`, "capabilities[0]: want string, got null"},
		{"aios/registry.subscribe", `{"events":[null]}`, "events[0]: want string, got null"},
		{"aios/registry.search", `{"capabilities":[1]}`, "capabilities[0]: want string, got number"},
		{"aios/registry.search", `{"capabilities":"streaming"}`, "capabilities: want array, got string"},
	} {
		m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"`+tc.method+`","params":`+tc.params+`}`)
		if errCode(m) != -32602 {
			t.Fatalf("%s %s: %v; want -32602", tc.method, tc.params, m)
		}
		if msg := fmt.Sprint(m["error"].(map[string]any)["message"]); !strings.Contains(msg, tc.want) {
			t.Errorf("%s %s: %q, want it to say %q", tc.method, tc.params, msg, tc.want)
		}
	}
	// A null list is no list, as before.
	for _, tc := range []struct{ method, params string }{
		{"aios/registry.search", `{"capabilities":null}`},
		{"aios/registry.search", `{"capabilities":["streaming"]}`},
	} {
		if m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"`+tc.method+`","params":`+tc.params+`}`); m["error"] != nil {
			t.Errorf("%s %s: %v", tc.method, tc.params, m)
		}
	}
}
