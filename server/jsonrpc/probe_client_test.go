package jsonrpc

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"
)

// A server (a remote adapter on a unix endpoint) that answers one request
// twice must not wedge the client's reader: later calls still get their
// answers.
func TestProbeDuplicateResponseDoesNotWedgeClient(t *testing.T) {
	cs, ss := net.Pipe()
	defer cs.Close()
	defer ss.Close()
	go func() {
		r := bufio.NewReader(ss)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			var req Request
			_ = json.Unmarshal(line, &req)
			resp, _ := json.Marshal(Response{JSONRPC: Version, ID: req.ID, Result: json.RawMessage(`1`)})
			resp = append(resp, '\n')
			_, _ = ss.Write(resp)
			_, _ = ss.Write(resp) // again
			_, _ = ss.Write(resp) // and again
		}
	}()
	c := NewConnClient(cs)
	for i := 0; i < 3; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		var n int
		err := c.Call(ctx, "m", nil, &n)
		cancel()
		if err != nil || n != 1 {
			t.Fatalf("call %d: %v (%d)", i, err, n)
		}
	}
}
