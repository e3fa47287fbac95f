package jsonrpc

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestAnswerWithoutResultOrErrorIsInvalidResult: an answer with neither a
// "result" nor an "error" member ({"jsonrpc":"2.0","id":"1"}) failed with
// "decoding tools/call result: EOF", naming neither the server nor what was
// missing, and a remote adapter took it for a failure to reach the remote
// (Unavailable) and dropped its connection. It is InvalidResult now, naming
// the server and the missing members; "result": null is still a result.
func TestAnswerWithoutResultOrErrorIsInvalidResult(t *testing.T) {
	answer := `{"jsonrpc":"2.0","id":"1"}`
	c, url := answering(t, &answer)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var res any
	err := c.Call(ctx, "tools/call", nil, &res)
	var rpcErr *Error
	if !errors.As(err, &rpcErr) || rpcErr.ToolError().Code != abi.InvalidResult ||
		!strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "neither") {
		t.Fatalf("an answer without result or error: %v; want InvalidResult naming the server and what is missing", err)
	}
	answer = `{"jsonrpc":"2.0","id":"2","result":null}`
	res = "unset"
	if err := c.Call(ctx, "tools/call", nil, &res); err != nil || res != nil {
		t.Fatalf("result null: %v, %v; want a null result", err, res)
	}
}

// TestAnswerWithResultAndErrorIsInvalidResult: an answer with both members
// (JSON-RPC 2.0 allows one) was read as its error, as if the server had
// surely failed the call; it is InvalidResult naming both. A "result": null
// beside an error (JSON-RPC 1.0's form) is still the error.
func TestAnswerWithResultAndErrorIsInvalidResult(t *testing.T) {
	answer := `{"jsonrpc":"2.0","id":"1","result":{"ok":true},"error":{"code":-32000,"message":"boom"}}`
	c, url := answering(t, &answer)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var res any
	err := c.Call(ctx, "tools/call", nil, &res)
	var rpcErr *Error
	if !errors.As(err, &rpcErr) || rpcErr.ToolError().Code != abi.InvalidResult ||
		!strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "both") || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("an answer with result and error: %v; want InvalidResult naming the server, both members and the error", err)
	}
	answer = `{"jsonrpc":"2.0","id":"2","result":null,"error":{"code":-32000,"message":"boom"}}`
	err = c.Call(ctx, "tools/call", nil, &res)
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32000 || rpcErr.Message != "boom" {
		t.Fatalf("result null beside an error: %v; want the error", err)
	}
}

// answering is a client of an HTTP server that answers every request
// with *answer, and the server's URL.
func answering(t *testing.T, answer *string) (*Client, string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, *answer)
	}))
	t.Cleanup(srv.Close)
	return NewHTTPClient(srv.URL+"/rpc", "", nil), srv.URL
}
