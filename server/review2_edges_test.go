package server

import (
	"strings"
	"testing"
	"unicode/utf16"
)

// TestCharsetLabelOnUTF8Body: the refusal of a charset other than
// utf-8 on POST /rpc (TestRPCCharsetNotUTF8Refused) refused bodies that
// are UTF-8 JSON and were served before: "charset=utf8" (a label of UTF-8
// every browser knows), and the ASCII bodies of clients that label every
// body ISO-8859-1 or us-ascii (older Spring RestTemplate does). RFC 8259
// §11 defines no charset for application/json: "adding one really has no
// effect on compliant recipients". The charset now matters only when the
// body is not UTF-8 JSON, where it says why (a UTF-16 body: 415 naming the
// charset, not "parse error" blaming the JSON).
func TestCharsetLabelOnUTF8Body(t *testing.T) {
	ts := newTestServer(t, "", true)
	body := `{"jsonrpc":"2.0","id":1,"method":"aios/registry.search","params":{"limit":1}}`
	for _, ct := range []string{"application/json; charset=utf8", "application/json; charset=ISO-8859-1", "application/json; charset=us-ascii"} {
		if status, b := httpPost(t, ts.url+"/rpc", testToken, ct, body); status != 200 || !strings.Contains(string(b), `"result"`) {
			t.Errorf("Content-Type %q, an ASCII body: %d %s; want it served", ct, status, b)
		}
	}
	var u16 strings.Builder
	for _, c := range utf16.Encode([]rune(body)) {
		u16.WriteByte(byte(c))
		u16.WriteByte(byte(c >> 8))
	}
	for _, c := range []struct{ ct, body string }{
		{"application/json; charset=utf-16le", u16.String()},
		{"application/json; charset=ISO-8859-1", strings.Replace(body, `"limit":1`, `"query":"caf\xe9"`, 1)},
	} {
		if status, b := httpPost(t, ts.url+"/rpc", testToken, c.ct, c.body); status != 415 || !strings.Contains(string(b), "JSON is UTF-8") {
			t.Errorf("Content-Type %q, a body in that charset: %d %s; want 415 saying JSON is UTF-8", c.ct, status, b)
		}
	}
}
