package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// A POST /rpc whose body never finished arriving (Content-Length 100, ten
// bytes sent) was answered 408 "reading the request body: read tcp
// 127.0.0.1:46697->127.0.0.1:35258: i/o timeout", naming socket addresses
// but neither the limit nor its key, where the socket's answer to the same
// says "message not received within 10s (server.read_timeout)". The 408
// names the time and server.read_timeout.
func TestSlowBodyNamesReadTimeout(t *testing.T) {
	ts := newTestServer(t, "", true) // read_timeout: 300ms
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"", testToken)
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	b, _ := io.ReadAll(bufio.NewReader(conn))
	got := string(b)
	if !strings.HasPrefix(got, "HTTP/1.1 408 ") {
		t.Fatalf("answer %q, want 408", got)
	}
	for _, w := range []string{"300ms", "server.read_timeout", `"code":"Timeout"`} {
		if !strings.Contains(got, w) {
			t.Errorf("%q does not say %q", got, w)
		}
	}
	if strings.Contains(got, "127.0.0.1") {
		t.Errorf("%q names socket addresses", got)
	}
}
