package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/server/jsonrpc"
)

// When the server refuses a connection or a message it says why in an
// answer with id null and closes the connection. The jsonrpc client (that
// of aios-host list and call through a running host, and of remote
// adapters on a unix endpoint) dropped that answer, no call having its id,
// and failed the call with "the server closed the connection" or
// "connection reset by peer": the reason (server.max_conns_per_uid, a uid
// not in server.uids, server.max_body_bytes) was lost. The call fails
// with the server's words; as a failed connection, not an answer to the
// call (*jsonrpc.Error), which a remote adapter would take for one and keep
// the dead connection instead of dialling again.
func TestClientSaysWhyServerClosed(t *testing.T) {
	ts := newTestServer(t, "  max_conns_per_uid: 1\n  max_body_bytes: 1024\n", false)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	check := func(what string, err error, code abi.ErrorCode, says string) {
		t.Helper()
		var je *jsonrpc.Error
		if err == nil || errors.As(err, &je) || !strings.Contains(err.Error(), "the server closed the connection: "+string(code)+": ") || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v; want the connection failed with the server's %s naming %s", what, err, code, says)
		}
	}
	c, err := jsonrpc.DialUnix(ctx, ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": strings.Repeat("x", 2000)}}, nil)
	check("a message over max_body_bytes", err, abi.TooLarge, "server.max_body_bytes")
	c.Close()

	// One connection held (served, so counted), the next is one too many.
	held, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	_ = held.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(held, `{"jsonrpc":"2.0","id":1,"method":"initialize"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(held).ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	for i := range 5 { // the refusal comes before or after the request is written
		c, err := jsonrpc.DialUnix(ctx, ts.sock)
		if err != nil {
			t.Fatal(err)
		}
		err = c.Call(ctx, "initialize", nil, nil)
		check("connection over max_conns_per_uid, try "+string(rune('1'+i)), err, abi.RateLimited, "server.max_conns_per_uid")
		c.Close()
	}
}
