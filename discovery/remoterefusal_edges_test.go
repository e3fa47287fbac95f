package discovery

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A remote host that refuses a connection (one over its
// server.max_conns_per_uid, a uid it does not serve) says why with id null
// and closes it. The call fails Unavailable with that reason (it said
// only "the server closed the connection"), and the next call, once the
// remote serves again, dials again rather than keeping the dead
// connection.
func TestRemoteRefusedConnectionSaysWhyAndRedials(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var refusing atomic.Bool
	refusing.Store(true)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			if refusing.Load() {
				_, _ = conn.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32003,"message":"uid 1000 already holds 128 connections to this socket, the limit (server.max_conns_per_uid)","data":{"code":"RateLimited"}}}` + "\n"))
				conn.Close()
				continue
			}
			go func() {
				defer conn.Close()
				sc := bufio.NewScanner(conn)
				for sc.Scan() {
					var req struct {
						ID json.RawMessage `json:"id"`
					}
					if json.Unmarshal(sc.Bytes(), &req) != nil {
						return
					}
					res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"value": "served"}})
					if _, err := conn.Write(append(res, '\n')); err != nil {
						return
					}
				}
			}()
		}
	}()
	card, err := ParseCard([]byte(`{"adapter": {"id": "org.test.refusing", "name": "Refusing", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [{"id": "r-echo", "name": "Echo", "permission_level": "low"}],
  "endpoints": {"rpc": "tcp://`+ln.Addr().String()+`"}}`), "adapter.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewRemoteProvider(card, card.Endpoints.RPC, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	call := func() (any, error) {
		return p.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: "r-echo", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}, nil)
	}
	_, err = call()
	if te := abi.AsToolError(err, abi.Internal); err == nil || te.Code != abi.Unavailable || !strings.Contains(te.Message, "server.max_conns_per_uid") {
		t.Fatalf("call on a refused connection: %v; want Unavailable with the remote's reason", err)
	}
	refusing.Store(false)
	if v, err := call(); err != nil || v != "served" {
		t.Fatalf("next call: %v, %v; want it served on a new connection", v, err)
	}
}
