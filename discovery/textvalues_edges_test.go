package discovery

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestRemoteResultText: a remote adapter's result that is not Unicode
// text (an invalid UTF-8 byte, an escaped lone surrogate) is refused with
// an error saying so, not read as U+FFFD: {"\ud800":1,"\udc00":2} became
// {"\ufffd":2}, a value lost without a word.
func TestRemoteResultText(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{`{"\ud800":1,"\udc00":2}`, `\ud800`},
		{"{\"a\xff\":1,\"a\xfe\":2}", "UTF-8"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"value":` + c.value + `}}`))
		}))
		card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.text", "name": "T", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "echo", "name": "Echo", "permission_level": "low"}],
  "endpoints": {"http": "`+srv.URL+`"}}`), "adapter.json")
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewRemoteProvider(card, srv.URL+"/rpc", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Call(context.Background(), &abi.ToolCall{ID: "c1", Tool: "echo", Params: map[string]any{}, Deadline: time.Now().Add(5 * time.Second)}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || abi.CodeOf(err) != abi.InvalidResult {
			t.Errorf("%q: %#v, %v; want InvalidResult naming %s", c.value, got, err, c.want)
		}
		p.Close()
		srv.Close()
	}
}
