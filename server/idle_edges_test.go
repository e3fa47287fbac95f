package server

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"testing"
	"time"
)

// A socket connection waiting for the answer to a call is not idle. A call
// running past server.idle_timeout (by default 5 minutes, while
// limits.max_deadline lets a call run 10) was cancelled with its
// connection, answered Cancelled "its caller having cancelled" though the
// caller was waiting. The call runs to its own deadline, the connection's
// idle time starts with its last answer, and an idle connection is still
// closed.
func TestCallInFlightNotIdle(t *testing.T) {
	ts := newTestServer(t, "  idle_timeout: 200ms\n", false)
	conn, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(conn)
	exchange := func(line string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(conn, line+"\n"); err != nil {
			t.Fatal(err)
		}
		b, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("%s: no answer: %v", line, err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	// slow runs 10 s; its deadline of 1.5 s is past the idle timeout.
	m := exchange(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","timeout_ms":1500}}`)
	if errCode(m) != -32004 {
		t.Fatalf("a call past idle_timeout: %v; want -32004 Timeout at its own deadline, not cancelled as idle", m)
	}
	// The connection is open after the answer, for the next request.
	if m := exchange(`{"jsonrpc":"2.0","id":2,"method":"initialize"}`); m["result"] == nil {
		t.Fatalf("request after the answer: %v", m)
	}
	// And closed once idle.
	if b, err := r.ReadBytes('\n'); err == nil {
		t.Fatalf("idle connection sent %s; want it closed", b)
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("idle connection still open after 30 s")
	}
}
