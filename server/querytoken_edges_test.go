package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// A bearer token in the query string (?access_token=, RFC 6750 §2.3, what
// a browser's EventSource, which sets no header, is often given) is not
// read, as URLs are logged; but the 401 said only "missing bearer token",
// as if the client had sent none. It now says the query's token is not
// read and where to put it, without echoing the token; it is not counted
// as an invalid token.
func TestQueryTokenNotReadSaysSo(t *testing.T) {
	ts := newTestServer(t, "", true)
	for _, c := range []struct{ method, path string }{
		{http.MethodPost, "/rpc?access_token=" + testToken},
		{http.MethodGet, "/events?Token=" + testToken},
	} {
		req, _ := http.NewRequest(c.method, ts.url+c.path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(b), "the token in the query string") || !strings.Contains(string(b), "Authorization: Bearer") {
			t.Errorf("%s %s: %d %s; want 401 saying the query's token is not read", c.method, c.path, resp.StatusCode, b)
		}
		if strings.Contains(string(b), testToken) {
			t.Errorf("%s %s: the answer echoes the token: %s", c.method, c.path, b)
		}
	}
	// Without one, the answer is as it was.
	status, b := httpPost(t, ts.url+"/rpc?x=1", "", "application/json", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`)
	if status != http.StatusUnauthorized || strings.Contains(string(b), "query string") {
		t.Errorf("no token anywhere: %d %s", status, b)
	}
}
