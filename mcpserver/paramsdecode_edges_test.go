package mcpserver

import (
	"strings"
	"testing"
)

// TestParamsThatDoNotDecodeAreExplained: params of the wrong shape (a
// _meta that is a string, params that are no object) are refused with
// -32602 saying which member is wrong and what it must be, over stdio and
// HTTP. The go-sdk's own message quoted the params whole, twice escaped
// (megabytes of arguments came back as an answer larger still, past what a
// client reads), and spoke of Go ("Go struct field
// mcp.CallToolParamsRaw._meta of type map[string]interface {}").
func TestParamsThatDoNotDecodeAreExplained(t *testing.T) {
	bulk := `"value":"` + strings.Repeat(`\"`, 256<<10) + `"`
	cases := []struct{ params, want string }{
		{`{"name":"echo","arguments":{` + bulk + `},"_meta":"x"}`, `invalid params of tools/call: "_meta" must be an object, got a string`},
		{`"x"`, `invalid params of tools/call: params must be an object, got a string`},
		{`{"name":["echo"]}`, `invalid params of tools/call: "name" must be a string, got an array`},
		// The right kind out of range: not "must be a number, got a number".
		{`{"name":"echo","arguments":{},"_meta":{"org.aios/depth":1e400}}`, `invalid params of tools/call: "_meta.org.aios/depth": the number 1e400 is out of range`},
	}
	check := func(t *testing.T, via, answer, want string) {
		t.Helper()
		if len(answer) > 4<<10 || strings.Contains(answer, "Go ") || !strings.Contains(answer, `"code":-32602`) || !strings.Contains(answer, strings.ReplaceAll(want, `"`, `\"`)) {
			t.Errorf("%s: answer of %d bytes, want -32602 %q: %.300s", via, len(answer), want, answer)
		}
	}

	t.Run("stdio", func(t *testing.T) {
		_, s := newTestHost(t, "")
		ss := newStdioSession(t, s)
		ss.initialize("2025-06-18")
		for i, c := range cases {
			ss.send(`{"jsonrpc":"2.0","id":` + itoa(i+1) + `,"method":"tools/call","params":` + c.params + `}`)
			check(t, "stdio", ss.mustRead(), c.want)
		}
		ss.ping(99)
	})
	t.Run("http", func(t *testing.T) {
		_, base := anonHTTP(t, "")
		sid := initSession(t, base)
		for i, c := range cases {
			a := post(t, base, `{"jsonrpc":"2.0","id":`+itoa(i+1)+`,"method":"tools/call","params":`+c.params+`}`, map[string]string{sessionHeader: sid})
			check(t, "http", a.body, c.want)
		}
	})
}
