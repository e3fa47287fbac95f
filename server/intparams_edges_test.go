package server

import (
	"strings"
	"testing"
)

// An integer member beyond its range was refused as "depth: want integer,
// got number" (encoding/json's word for 9223372036854775808), naming
// neither the value nor what is wrong with it: a client sending
// 2^64-1 for "no timeout" was told it sent no integer. The value and the
// range are named; a whole number written with an exponent from 2^53 on
// is told to be written as an integer literal.
func TestOutOfRangeIntegerParamsNamed(t *testing.T) {
	ts := newTestServer(t, "  read_timeout: 10s\n", false) // a 1 MB message: 300 ms is too short on a loaded machine
	for _, tc := range []struct{ method, params, want string }{
		{"tools/call", `{"name":"echo","arguments":{"value":1},"timeout_ms":18446744073709551615}`,
			"timeout_ms: want integer, got 18446744073709551615, which is out of range (from -9223372036854775808 to 9223372036854775807)"},
		{"tools/call", `{"name":"echo","arguments":{"value":1},"depth":9223372036854775808}`,
			"depth: want integer, got 9223372036854775808, which is out of range"},
		{"aios/registry.search", `{"limit":-9223372036854775809}`,
			"limit: want integer, got -9223372036854775809, which is out of range"},
		{"aios/registry.search", `{"limit":1e300}`,
			"limit: want integer, got 1e300, which is out of range"},
		{"aios/registry.search", `{"limit":1e17}`,
			"limit: want integer, got 1e17, which from 2^53 on may not be exact written with a fraction or exponent: write it as an integer literal"},
		{"aios/registry.search", `{"limit":10.5}`,
			"limit: want integer, got 10.5, which is not a whole number"},
		// A number of megabytes is named by its start.
		{"aios/registry.search", `{"limit":` + strings.Repeat("9", 1<<20) + `}`,
			"limit: want integer, got 9999999999999999999999999999999999999999… (1048576 characters), which is out of range"},
		{"aios/registry.search", `{"limit":1.` + strings.Repeat("5", 1<<20) + `}`,
			"limit: want integer, got 1.55555555555555555555555555555555555555… (1048578 characters), which is not a whole number"},
	} {
		m := rawExchange(t, ts, `{"jsonrpc":"2.0","id":1,"method":"`+tc.method+`","params":`+tc.params+`}`)
		e, _ := m["error"].(map[string]any)
		if msg, _ := e["message"].(string); errCode(m) != -32602 || !strings.Contains(msg, tc.want) || len(msg) > 1000 {
			t.Errorf("%s %.200s: %.500v; want -32602 saying %q", tc.method, tc.params, m, tc.want)
		}
	}
}
