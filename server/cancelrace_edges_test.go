package server

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// TestCancelRightAfterRequestReachesIt: a socket request runs in a
// goroutine of its own, which keyed it for notifications/cancelled only
// once it had decoded it, while the connection read on: a cancel sent
// right behind its request (a client giving up at once, or writing both
// together) was often read first, found nothing of that id (cancelled: 0)
// and was lost, the call running to its end (found by p165: 6 of 10). The
// connection reads on only once a request is keyed, so the cancel always
// finds it.
func TestCancelRightAfterRequestReachesIt(t *testing.T) {
	c, r := rawUnixConn(t)
	for i := range 20 {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":"c%d","method":"tools/call","params":{"name":"slow"}}`+"\n"+
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c%d"}}`+"\n", i, i)
		if _, err := c.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(8 * time.Second)) // slow returns by itself after 10 s
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("request %d, cancelled right after it was sent: no answer: %v", i, err)
		}
		if !strings.Contains(line, fmt.Sprintf(`"id":"c%d"`, i)) || !strings.Contains(line, "Cancelled") {
			t.Fatalf("request %d, cancelled right after it was sent: %s, want Cancelled", i, line)
		}
	}
}

// TestCancelRightAfterBatchReachesIt: the requests of a batch were keyed
// for notifications/cancelled as each started, while the connection read
// on: a cancel sent right behind the batch was often read first, found
// nothing and was lost (found by p165), and a member waiting for one of
// the batch's places could not be cancelled at all. Every member is keyed
// before the connection reads on.
func TestCancelRightAfterBatchReachesIt(t *testing.T) {
	c, r := rawUnixConn(t)
	for i := range 10 {
		// Nine slow calls: the ninth waits for one of the batch's eight
		// places; both it and the first are cancelled.
		var members []string
		for j := range 9 {
			members = append(members, fmt.Sprintf(`{"jsonrpc":"2.0","id":"b%d-%d","method":"tools/call","params":{"name":"slow"}}`, i, j))
		}
		msg := "[" + strings.Join(members, ",") + "]\n"
		for _, j := range []int{0, 8} {
			msg += fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b%d-%d"}}`+"\n", i, j)
		}
		for j := 1; j < 8; j++ {
			msg += fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b%d-%d"}}`+"\n", i, j)
		}
		if _, err := c.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(8 * time.Second)) // slow returns by itself after 10 s
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("batch %d, cancelled right after it was sent: no answer: %v", i, err)
		}
		for j := range 9 {
			if !strings.Contains(line, fmt.Sprintf(`"id":"b%d-%d"`, i, j)) {
				t.Fatalf("batch %d: member %d not answered: %s", i, j, line)
			}
		}
		if n := strings.Count(line, "Cancelled"); n < 9 {
			t.Fatalf("batch %d, every member cancelled right after it was sent: %d answered Cancelled: %s", i, n, line)
		}
	}
}

// rawUnixConn is a socket connection to a test server, and its reader.
func rawUnixConn(t *testing.T) (net.Conn, *bufio.Reader) {
	t.Helper()
	ts := newTestServer(t, "", false)
	c, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}
