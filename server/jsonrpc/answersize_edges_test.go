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

// An HTTP answer longer than MaxMessageBytes failed with a plain error,
// which a remote adapter's call reports Unavailable, as if the remote
// could not be reached and a retry might do: it was reached, and answers
// too much. It is a TooLarge *Error now, naming the URL and the limit, as
// an answer over the decode budget is.
func TestHTTPAnswerOverLimitIsTooLarge(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":"1","result":"`)
		chunk := strings.Repeat("x", 1<<20)
		for i := 0; i <= MaxMessageBytes>>20; i++ {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
		_, _ = io.WriteString(w, `"}`)
	}))
	defer srv.Close()
	c := NewHTTPClient(srv.URL+"/rpc", "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var res any
	err := c.Call(ctx, "tools/call", nil, &res)
	var rpcErr *Error
	if !errors.As(err, &rpcErr) || rpcErr.ToolError().Code != abi.TooLarge || !strings.Contains(err.Error(), srv.URL) {
		t.Fatalf("an answer over %d bytes: %v; want a TooLarge *Error naming %s", MaxMessageBytes, err, srv.URL)
	}
}
