package jsonrpc

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A server that refuses a connection says why in an answer with id null
// and closes it, possibly before the client writes its request: the write
// fails (a broken pipe), and the call fails with the server's reason, not
// "writing to …: broken pipe" (as a failed connection, not an answer).
func TestCallAfterRefusalSaysWhy(t *testing.T) {
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	closed := make(chan struct{})
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		_, _ = conn.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32002,"message":"uid 1001 is not allowed on this socket (map it to an agent in server.uids)","data":{"code":"CapabilityDenied"}}}` + "\n"))
		conn.Close()
		close(closed)
	}()
	conn, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	<-closed
	c := NewConnClient(conn)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = c.Call(ctx, "initialize", nil, nil)
	var je *Error
	if err == nil || errors.As(err, &je) || !strings.Contains(err.Error(), "the server closed the connection: "+string(abi.CapabilityDenied)+": ") || !strings.Contains(err.Error(), "server.uids") {
		t.Fatalf("call on a connection the server refused: %v; want the connection failed with its CapabilityDenied naming server.uids", err)
	}
}
