package server

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// ListenHTTP and ServeHTTPListener after Close started an HTTP server that
// nothing ever shut down: a program whose shutdown raced its start-up (a
// signal between New and ListenHTTP) kept answering /rpc on a closed
// server, its listener open and its goroutine running for ever, where
// ListenUnix and ServeConn refuse once closed. ListenHTTP now fails saying
// the server is closed, and ServeHTTPListener closes the listener it is
// given.
func TestListenHTTPAfterCloseRefused(t *testing.T) {
	ts := newTestServer(t, "", false)
	if err := ts.s.Close(); err != nil {
		t.Fatal(err)
	}
	addr, err := ts.s.ListenHTTP("127.0.0.1:0")
	if err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("ListenHTTP after Close = %v, %v; want an error saying the server is closed", addr, err)
	}
	if addr != nil {
		if resp, gerr := (&http.Client{Timeout: 5 * time.Second}).Get("http://" + addr.String() + "/health"); gerr == nil {
			resp.Body.Close()
			t.Fatalf("a closed server answered GET /health with %s", resp.Status)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ts.s.ServeHTTPListener(ln)
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get("http://" + ln.Addr().String() + "/health")
	if err == nil {
		resp.Body.Close()
		t.Fatalf("ServeHTTPListener after Close served GET /health: %s", resp.Status)
	}
}
