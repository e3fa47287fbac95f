package server

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestClientCancelCancelsCallOnSocket: a jsonrpc.Client whose call's
// context ended (a remote adapter whose caller gave up or timed out)
// returned at once, but the call it had sent ran on at the server until
// its end or deadline, since the connection, shared by other calls, stays
// open and the API had no way to cancel one request (found by p120: a
// remote adapter on a unix:// endpoint left the remote host's call
// running). Now the client sends notifications/cancelled with the
// request's id and the server cancels that call.
func TestClientCancelCancelsCallOnSocket(t *testing.T) {
	ts := newTestServer(t, "", false)
	ended := make(chan host.CallStats, 4)
	defer ts.h.OnCall(func(st host.CallStats) { ended <- st })()
	c := dial(t, ts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Call(ctx, "tools/call", map[string]any{"name": "slow"}, nil) }()
	ts.waitSlow(t, 1)
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled call returned no error")
	}
	select {
	case st := <-ended:
		if st.Code != abi.Cancelled {
			t.Fatalf("the call its client cancelled ended with %q, want Cancelled", st.Code)
		}
	case <-time.After(8 * time.Second): // slow returns on its own after 10 s
		t.Fatal("the call its client cancelled ran on")
	}
	// The connection serves on.
	if err := c.Call(context.Background(), "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"value": 1}}, nil); err != nil {
		t.Fatalf("a call after the cancelled one: %v", err)
	}
}

// TestCancelledNotificationNamesItsCause: notifications/cancelled ends
// the request of that id on the same connection, which answers Cancelled
// saying its client cancelled it, and why when the client said (its
// "reason" was dropped); another connection's request of the same id is
// not touched.
func TestCancelledNotificationNamesItsCause(t *testing.T) {
	ts := newTestServer(t, "", false)
	a, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	call := `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"slow"}}` + "\n"
	for _, c := range []net.Conn{a, b} {
		if _, err := c.Write([]byte(call)); err != nil {
			t.Fatal(err)
		}
	}
	ts.waitSlow(t, 2)
	if _, err := a.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"user gave up"}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	_ = a.SetReadDeadline(time.Now().Add(8 * time.Second))
	line, err := bufio.NewReader(a).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer to the cancelled request: %v", err)
	}
	if !strings.Contains(line, `"id":"c1"`) || !strings.Contains(line, `"Cancelled"`) || !strings.Contains(line, "notifications/cancelled") {
		t.Fatalf("answer %s: want c1 Cancelled, naming notifications/cancelled", line)
	}
	// And the reason the client gave, which was dropped.
	if !strings.Contains(line, `reason \"user gave up\"`) {
		t.Fatalf("answer %s: want the client's reason, \"user gave up\"", line)
	}
	if n := ts.slow.Load(); n != 1 {
		t.Fatalf("%d slow calls running, want the other connection's still running", n)
	}
}

// TestIDKeyByValue: a request id names the request by its value, so a
// notifications/cancelled may write a string id escaped otherwise than the
// request did; a number and the string of its digits are different ids.
func TestIDKeyByValue(t *testing.T) {
	same := [][2]string{{`"a"`, `"\u0061"`}, {`"x/y"`, `"x\/y"`}, {` "b" `, `"b"`}, {`7`, ` 7`}}
	for _, p := range same {
		if idKey(json.RawMessage(p[0])) != idKey(json.RawMessage(p[1])) {
			t.Errorf("%s and %s: different keys", p[0], p[1])
		}
	}
	for _, p := range [][2]string{{`1`, `"1"`}, {`null`, `"null"`}, {`"a"`, `"b"`}} {
		if idKey(json.RawMessage(p[0])) == idKey(json.RawMessage(p[1])) {
			t.Errorf("%s and %s: the same key", p[0], p[1])
		}
	}
}
