package jsonrpc

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestFailedStatusWithResultRefused: an HTTP answer with a failed status
// (a 500 of a proxy or a crashing handler, a 401) whose body parsed as a
// JSON-RPC response with a "result" was taken as the tool's result, the
// status ignored (found by p157). A result under a status outside 2xx is
// refused naming the server and the status; a JSON-RPC error under one
// is still that error, and a 200 result still the result.
func TestFailedStatusWithResultRefused(t *testing.T) {
	status, answer := http.StatusInternalServerError, `{"jsonrpc":"2.0","id":"1","result":{"value":1}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, answer)
	}))
	defer srv.Close()
	c := NewHTTPClient(srv.URL+"/rpc", "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var res any
	err := c.Call(ctx, "tools/call", nil, &res)
	if err == nil || !strings.Contains(err.Error(), srv.URL) || !strings.Contains(err.Error(), "500") {
		t.Fatalf("a result under HTTP 500: %v (result %v); want an error naming the server and the status", err, res)
	}
	status, answer = http.StatusTooManyRequests, `{"jsonrpc":"2.0","id":"2","error":{"code":-32000,"message":"slow down"}}`
	if err := c.Call(ctx, "tools/call", nil, &res); err == nil || !strings.Contains(err.Error(), "slow down") {
		t.Fatalf("an error under HTTP 429: %v; want the JSON-RPC error", err)
	}
	status, answer = http.StatusOK, `{"jsonrpc":"2.0","id":"3","result":{"value":2}}`
	res = nil
	if err := c.Call(ctx, "tools/call", nil, &res); err != nil || res == nil {
		t.Fatalf("a 200 result: %v, %v", err, res)
	}
}
