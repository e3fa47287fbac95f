package server

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"
)

// TestRefreshCancelledByItsClientAnswers: the request that started a
// rescan ran it to its end before it answered (its run may serve
// others, so it does not stop), and a notifications/cancelled of it was
// not answered until then: a refresh waiting on a remote that does not
// answer was answered after the remote's timeout, where a refresh that
// only waited for that run answered Cancelled at once (found by p165).
// It answers Cancelled at once too; the rescan goes on for the others.
func TestRefreshCancelledByItsClientAnswers(t *testing.T) {
	hang, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hang.Close()
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := hang.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never answered
		}
	}()
	ts := newTestServer(t, "discovery:\n  remotes:\n    - {url: 'http://"+hang.Addr().String()+"', timeout: 30s, allow_unsigned: true}\n", false)
	c, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(`{"jsonrpc":"2.0","id":"rf","method":"aios/registry.refresh","params":{"scope":"remote"}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case hc := <-accepted:
		defer hc.Close()
	case <-time.After(20 * time.Second):
		t.Fatal("the refresh did not fetch the remote's card within 20 s")
	}
	if _, err := c.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"rf"}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second)) // the rescan waits on the remote 5 s (its fetch) from before the cancel
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer to the cancelled refresh: %v", err)
	}
	if !strings.Contains(line, `"id":"rf"`) || !strings.Contains(line, "Cancelled") {
		t.Fatalf("answer %s, want the refresh Cancelled", line)
	}
}
