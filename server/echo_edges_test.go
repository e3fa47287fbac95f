package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// An error names what was wrong by quoting the request's value, and quoted
// it whole: a method, a member name, an adapter id, a scope, an event, a
// subscription, a protocol version, a tool name or a version of megabytes
// came back as megabytes, up to ten times larger (a capability of 2 MiB of
// U+00AD was answered with 22 MB: quoted by %q, again in the error it
// wrapped, and escaped again in JSON), as the registry already cut a
// version constraint. Each is named by its first 200 bytes (128 for the
// registry's) and its length, in the message and in data.details.
func TestLongRequestValuesCutInErrors(t *testing.T) {
	ts := newTestServer(t, "  read_timeout: 10s\n", false) // a 1 MB message: 300 ms is too short on a loaded machine
	big := strings.Repeat("\u00ad", 1<<19)                 // 1 MiB of a character every escape lengthens
	for _, tc := range []struct {
		method, params string
		code           float64
	}{
		{big, `{}`, -32601},
		{"tools/call", `{"name":"echo","arguments":{"value":1},"` + big + `":1}`, -32602},
		{"tools/call", `{"name":"` + big + `"}`, -32001},
		{"aios/registry.info", `{"adapter_id":"` + big + `"}`, -32001},
		{"aios/registry.diff", `{"tool":"` + big + `"}`, -32001},
		{"aios/registry.diff", `{"tool":"echo","from":"` + big + `"}`, -32602},
		{"aios/registry.diff", `{"tool":"echo","to":"9` + big + `"}`, -32602},
		{"aios/registry.search", `{"capabilities":["` + big + `"]}`, -32602},
		{"aios/registry.search", `{"capabilities":["ReadSpace(` + big + `"]}`, -32602},
		{"aios/registry.refresh", `{"scope":"` + big + `"}`, -32602},
		{"aios/registry.subscribe", `{"events":["` + big + `"]}`, -32602},
		{"aios/registry.unsubscribe", `{"subscription":"` + big + `"}`, -32001},
		{"initialize", `{"protocol_version":"` + big + `"}`, -32602},
	} {
		req := `{"jsonrpc":"2.0","id":1,"method":"` + tc.method + `","params":` + tc.params + `}`
		reply := rawLine(t, ts, req)
		var m map[string]any
		if err := json.Unmarshal(reply, &m); err != nil {
			t.Fatal(err)
		}
		name := tc.method
		if len(name) > 40 {
			name = "(a long method)"
		}
		if len(reply) > 4096 || errCode(m) != tc.code || !strings.Contains(string(reply), "bytes)") {
			t.Errorf("%s %.60s…: %d bytes answered for %d (%.300s); want error %v naming the value by its start and length",
				name, strings.ReplaceAll(tc.params, "\u00ad", ""), len(reply), len(req), reply, tc.code)
		}
	}
}
