package jsonrpc

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// Over HTTP the id of an answer was not read: an answer to another
// request (id 12345, as a caching proxy or a confused remote gives) was
// taken as the call's result. An answer whose id is not the request's is
// refused now, naming the URL and both ids; an error answered with id
// null (a host refusing a request it could not read) still counts.
func TestHTTPAnswerWithOtherIDRefused(t *testing.T) {
	answer := `{"jsonrpc":"2.0","id":12345,"result":{"value":1}}`
	c, url := answering(t, &answer)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var res any
	err := c.Call(ctx, "tools/call", nil, &res)
	if err == nil || !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), "12345") {
		t.Fatalf("an answer with id 12345: %v, result %v; want it refused naming the URL and the id", err, res)
	}
	answer = `{"jsonrpc":"2.0","id":null,"error":{"code":-32003,"message":"slow down","data":{"code":"RateLimited"}}}`
	err = c.Call(ctx, "tools/call", nil, &res)
	var rpcErr *Error
	if !errors.As(err, &rpcErr) || rpcErr.ToolError().Code != abi.RateLimited {
		t.Fatalf("an error with id null: %v; want the remote's RateLimited", err)
	}
}
