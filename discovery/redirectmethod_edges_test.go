package discovery

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestRemoteCallRedirectToGetRefused: a remote adapter answering a call
// with a 301, 302 or 303 redirect within its origin had Go's client follow
// it as a GET without the call's body (the redirect a web server gives for
// /rpc → /rpc/): the call was lost and the caller read `…/rpc answered
// request id "1" with id …: not an answer to it` or whatever the page at
// the new URL said. Such a redirect is refused now, naming the remote, the
// status and the URL, and nothing is sent to the new URL; 307 and 308,
// which keep the POST, are still followed.
func TestRemoteCallRedirectToGetRefused(t *testing.T) {
	var gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			gets.Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":"x","result":{"value":"from a GET"}}`))
			return
		}
		http.Redirect(w, r, "/rpc/", http.StatusMovedPermanently)
	}))
	defer srv.Close()
	card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.redirget", "name": "R", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "moved", "name": "M", "permission_level": "low"}]}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRemoteProvider(card, srv.URL+"/rpc", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = p.Call(context.Background(), &abi.ToolCall{ID: "a", Tool: "moved", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, nil)
	var te *abi.ToolError
	if !errors.As(err, &te) || !strings.Contains(te.Message, "org.test.redirget") || !strings.Contains(te.Message, "301") ||
		!strings.Contains(te.Message, "GET") || !strings.Contains(te.Message, srv.URL+"/rpc/") {
		t.Fatalf("a 301 answer to a call: %v; want it refused naming the remote, the status, that it would be a GET and the URL", err)
	}
	if n := gets.Load(); n != 0 {
		t.Fatalf("the redirect was followed as %d GET requests", n)
	}
}
