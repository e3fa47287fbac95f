package server

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/server/jsonrpc"
)

// TestConnsPerUIDBounded: past server.max_conns_per_uid a uid's next
// connection gets one RateLimited error line and is closed; closing one
// makes room.
func TestConnsPerUIDBounded(t *testing.T) {
	ts := newTestServer(t, "  max_conns_per_uid: 2\n", false)
	ctx := context.Background()
	a, b := dial(t, ts), dial(t, ts)
	for _, c := range []*jsonrpc.Client{a, b} { // both served, so both counted
		if err := c.Call(ctx, "tools/list", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	third := func() string {
		conn, err := net.Dial("unix", ts.sock)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		// The refused connection may be closed before this write (EPIPE):
		// the refusal line is read all the same, it is in the socket.
		_, werr := conn.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n"))
		line, _ := bufio.NewReader(conn).ReadString('\n')
		if line == "" && werr != nil {
			return "write: " + werr.Error()
		}
		return line
	}
	if got := third(); !strings.Contains(got, "server.max_conns_per_uid") || !strings.Contains(got, `"RateLimited"`) || !strings.Contains(got, "holds 2 connections") {
		t.Fatalf("third connection got %q, want RateLimited naming server.max_conns_per_uid", got)
	}
	if got := third(); !strings.Contains(got, `"details":{"limit":"server.max_conns_per_uid"}`) {
		t.Fatalf("third connection got %q, want data.details.limit server.max_conns_per_uid", got)
	}
	a.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := third()
		if strings.Contains(got, `"tools"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after closing one connection a new one still gets %q", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
