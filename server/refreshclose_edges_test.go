package server

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"
)

// TestRefreshInFlightAnsweredAtClose: aios/registry.refresh runs its
// rescan without its caller's cancellation (other callers may share it),
// so the server closing did not end it either: a refresh waiting on a
// remote that does not answer held the server's Close until the remote's
// timeout, and its socket client, whose connection Close cut after its
// grace, got no answer at all (found by p165), where every call in flight
// is answered at shutdown. The rescan ends when the server closes, and the
// request is answered.
func TestRefreshInFlightAnsweredAtClose(t *testing.T) {
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
	closed := make(chan time.Duration, 1)
	start := time.Now()
	go func() {
		_ = ts.s.Close()
		closed <- time.Since(start)
	}()
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer to the refresh in flight when the server closed: %v", err)
	}
	if !strings.Contains(line, `"id":"rf"`) || !strings.Contains(line, "Cancelled") || !strings.Contains(line, "shutting down") {
		t.Fatalf("answer %s, want the refresh Cancelled, the host shutting down", line)
	}
	select {
	case d := <-closed:
		if d > 10*time.Second {
			t.Errorf("Close took %v with a refresh in flight", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Close did not return within 20 s of a refresh in flight")
	}
}
