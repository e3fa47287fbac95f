package jsonrpc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestErrorDetailsIntegersExact: an error's data.details was decoded into
// float64 by the client (`aios-host call` through a running host, a remote
// adapter), so a tool's error data {"n": 9007199254740993} reached the
// caller as 9007199254740992 and 2^63-1 as 9223372036854776000, while the
// same numbers in a result came through exact. Now details are read in
// canonical form, as a result is: int64, uint64 above it, float64.
func TestErrorDetailsIntegersExact(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":"1","error":{"code":-32004,"message":"m","data":{"code":"Timeout","details":{"n":9007199254740993,"max":9223372036854775807,"u":18446744073709551615,"f":1.5,"a":[null,{"b":[]}]}}}}`))
	}))
	defer srv.Close()
	c := NewHTTPClient(srv.URL, "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := c.Call(ctx, "tools/call", nil, nil)
	var je *Error
	if !errors.As(err, &je) {
		t.Fatalf("err = %v, want a JSON-RPC error", err)
	}
	te := je.ToolError()
	d, _ := te.Data.(map[string]any)
	if te.Code != abi.Timeout || d == nil {
		t.Fatalf("tool error = %#v", te)
	}
	if d["n"] != int64(1<<53+1) || d["max"] != int64(1<<63-1) || d["u"] != uint64(1<<64-1) || d["f"] != 1.5 {
		t.Errorf("details = %#v: integers not exact", d)
	}
	if a, _ := d["a"].([]any); len(a) != 2 || a[0] != nil {
		t.Errorf("details.a = %#v", d["a"])
	}
}
