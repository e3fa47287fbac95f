package server

import (
	"bufio"
	"encoding/json"
	"net"
	"testing"
	"time"
)

// A client learns its subscription's id from the answer to
// aios/registry.subscribe: no notification of that subscription may reach
// it before that answer, however busy the registry is.
func TestNoNotificationBeforeSubscribeAnswer(t *testing.T) {
	ts := newTestServer(t, "", false)
	defer churnRegistry(ts)()
	if testHookBeforeAnswer != nil {
		t.Fatal("hook already set")
	}
	// Hold the answer back a little, as a loaded machine may: the
	// subscription exists and events arrive meanwhile.
	testHookBeforeAnswer = func() { time.Sleep(20 * time.Millisecond) }
	defer func() { testHookBeforeAnswer = nil }()
	for i := 0; i < 10; i++ {
		c, err := net.Dial("unix", ts.sock)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReader(c)
		_, _ = c.Write([]byte(`{"jsonrpc":"2.0","id":"s","method":"aios/registry.subscribe"}` + "\n"))
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			ID     string
			Method string
			Result struct{ Subscription string }
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("try %d: %v: %s", i, err, line)
		}
		if m.ID != "s" || m.Result.Subscription == "" {
			t.Fatalf("try %d: the first message is not the subscribe answer: %s", i, line)
		}
		// And the notifications do follow it.
		line, err = r.ReadString('\n')
		if err != nil {
			t.Fatalf("try %d: no notification after the answer: %v", i, err)
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Method != NotificationToolsChanged {
			t.Fatalf("try %d: second message is not a notification: %s", i, line)
		}
		c.Close()
	}
}
