package mcp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestHTTPAnswerUnderOtherIDFailsAtOnce: a URL server answering a POST
// with a JSON body (application/json: the one answer to the POST's
// request) under another id than the request's — a number for another
// request, or the request's id as a string — left the call waiting until
// its deadline: the go-sdk took the body for the answer to no request and
// dropped it. The call now fails at once with an error naming both ids,
// and the session goes on.
func TestHTTPAnswerUnderOtherIDFailsAtOnce(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var m fakeMsg
		_ = json.Unmarshal(b, &m)
		w.Header().Set("Mcp-Session-Id", "s1")
		if len(m.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		answer := func(id string, result string) {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
		}
		switch m.Method {
		case "initialize":
			answer(string(m.ID), `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`)
		case "tools/list":
			answer(string(m.ID), `{"tools":[{"name":"other","inputSchema":{"type":"object"}},{"name":"quoted","inputSchema":{"type":"object"}},{"name":"right","inputSchema":{"type":"object"}}]}`)
		default:
			switch {
			case strings.Contains(string(m.Params), `"other"`):
				answer("424242", `{"content":[]}`)
			case strings.Contains(string(m.Params), `"quoted"`):
				answer(fmt.Sprintf("%q", m.ID), `{"content":[]}`)
			default:
				answer(string(m.ID), `{"content":[{"type":"text","text":"right"}]}`)
			}
		}
	}))
	t.Cleanup(srv.Close)
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"r": {URL: srv.URL, ConnectTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.r")
	for _, tc := range []struct{ tool, id string }{{"other", "424242"}, {"quoted", `"`}} {
		_, err := call(t, p, "mcp-r-"+tc.tool, nil, 60*time.Second)
		t.Logf("%s: %v", tc.tool, err)
		if err == nil || abi.CodeOf(err) == abi.Timeout || !strings.Contains(err.Error(), "under the id "+tc.id) {
			t.Errorf("%s: %v; want an error at once naming the id the server answered under", tc.tool, err)
		}
	}
	if v, err := call(t, p, "mcp-r-right", nil, 60*time.Second); err != nil || !strings.Contains(formatValue(v), "right") {
		t.Fatalf("after: %v %v", v, err)
	}
}
