package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/server/jsonrpc"
)

// waitNoConns waits until the server holds no socket connection.
func waitNoConns(t *testing.T, s *Server) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s.mu.Lock()
		n := len(s.conns)
		s.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d socket connections still open after 30 s", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A remote adapter on a unix (or tcp) endpoint keeps its connection
// between calls, and a remote host closes a connection idle for its
// server.idle_timeout (5 minutes): the first call after such a pause
// failed Unavailable "the server closed the connection", though it never
// reached the remote. A call whose request was not sent
// (jsonrpc.ErrNotSent) goes again, once, on a new connection.
func TestRemoteAdapterCallAfterIdleClose(t *testing.T) {
	ts := newTestServer(t, "  idle_timeout: 100ms\n", false)
	card, err := discovery.ParseCard([]byte(`{"adapter": {"id": "org.test.peer", "name": "Peer", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "echo", "name": "Echo", "permission_level": "low"}],
  "endpoints": {"rpc": "unix://`+ts.sock+`"}}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := discovery.NewRemoteProvider(card, card.Endpoints.RPC, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := range 3 {
		v, err := p.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: "echo", Params: map[string]any{"value": int64(i)}, Deadline: time.Now().Add(30 * time.Second)}, nil)
		if err != nil {
			t.Fatalf("call %d, after the remote closed the idle connection: %v", i, err)
		}
		if got, _ := v.(map[string]any)["value"].(int64); got != int64(i) {
			t.Fatalf("call %d: %v", i, v)
		}
		waitNoConns(t, ts.s) // closed as idle
	}
	// The client says so of a call on a connection that had ended.
	c, err := jsonrpc.DialUnix(context.Background(), ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Call(context.Background(), "initialize", nil, nil); err != nil {
		t.Fatal(err)
	}
	waitNoConns(t, ts.s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Call(ctx, "initialize", nil, nil); !errors.Is(err, jsonrpc.ErrNotSent) {
		t.Fatalf("call on a connection the server closed: %v; want jsonrpc.ErrNotSent in its chain", err)
	}
}
