package server

import (
	"bufio"
	"strings"
	"testing"
	"time"
)

// TestCancelBehindQueuedRequestReachesFullConnection: while a socket
// connection's 32 slots were taken, a further request waited for one to
// free, and the server read nothing after it: a notifications/cancelled
// sent after it was not read until a call ended by itself, so a client
// that had queued one more request than the connection runs could not
// cancel any of its calls (found by p165), nor the queued request itself,
// which then ran. The cancels among what the connection sent after the
// waiting request are applied while it waits, and one naming the waiting
// request answers it Cancelled without running it.
func TestCancelBehindQueuedRequestReachesFullConnection(t *testing.T) {
	c := fillConnection(t)
	queued := `{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"slow"}}` + "\n"
	cancel := func(id string) string {
		return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"` + id + `"}}` + "\n"
	}
	if _, err := c.Write([]byte(queued + cancel("r0") + cancel("q"))); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(8 * time.Second)) // slow returns by itself after 10 s
	r := bufio.NewReader(c)
	got := map[string]string{}
	for len(got) < 2 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("answers while the connection's %d slots were taken and a request waited: %v, want r0 and q Cancelled (got %v)", maxConcurrentPerConn, err, got)
		}
		for _, id := range []string{"r0", "q"} {
			if strings.Contains(line, `"id":"`+id+`"`) {
				got[id] = line
			}
		}
	}
	for id, line := range got {
		if !strings.Contains(line, "Cancelled") || !strings.Contains(line, "notifications/cancelled") {
			t.Errorf("answer to %s: %s, want Cancelled by its client", id, line)
		}
	}
	if !strings.Contains(got["q"], "did not run") {
		t.Errorf("answer to the queued request: %s, want it said not run", got["q"])
	}
}
