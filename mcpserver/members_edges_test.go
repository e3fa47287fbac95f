package mcpserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestMemberTwiceOrInAnotherCaseRefused: the go-sdk read a member given
// twice as the last, so {"name":"echo","name":"add"} ran add (a gateway
// reading the first saw echo), and a member in another case as none: a
// request with "ID" was taken for a notification and one with "METHOD"
// for a response, neither answered. Each is refused with -32600 naming
// the member, over stdio and HTTP; a tool's arguments may repeat names as
// before (the last is kept, docs/abi.md).
func TestMemberTwiceOrInAnotherCaseRefused(t *testing.T) {
	_, s := newTestHost(t, exportCfg)
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	for _, c := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","name":"add","arguments":{"value":1}}}`, `"id":6,"error":{"code":-32600,"message":"invalid request: params: member \"name\" is given twice"`},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"arguments":{"a":5,"b":5}}}`, `"id":7,"error":{"code":-32600,"message":"invalid request: params: member \"arguments\" is given twice"`},
		{`{"jsonrpc":"2.0","ID":8,"method":"ping"}`, `"id":8,"error":{"code":-32600,"message":"invalid request: unknown member \"ID\" (member names are case-sensitive: did you mean \"id\"?)"`},
		{`{"jsonrpc":"2.0","id":9,"METHOD":"ping"}`, `"id":9,"error":{"code":-32600,"message":"invalid request: unknown member \"METHOD\"`},
		{`{"jsonrpc":"2.0","id":10,"method":"ping","method":"tools/list"}`, `"id":10,"error":{"code":-32600,"message":"invalid request: member \"method\" is given twice"`},
		{`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{"value":1,"value":2,"name":3}}}`, `"id":11,"result":{"content":[{"type":"text","text":"{\"value\":2}"}]}`},
	} {
		ss.send(c.line)
		if l := ss.read(30 * time.Second); !strings.Contains(l, c.want) {
			t.Errorf("%s\n answered %q\n want %s", c.line, l, c.want)
		}
	}

	_, hs := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	srv := httptest.NewServer(hs.Handler())
	t.Cleanup(srv.Close)
	post := func(sid, body string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+Path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	resp, _ := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if resp, b := post(sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","name":"add","arguments":{"value":1}}}`); resp.StatusCode != http.StatusBadRequest || !strings.Contains(b, `member \"name\" is given twice`) {
		t.Errorf("HTTP name twice: %d %s", resp.StatusCode, b)
	}
}
