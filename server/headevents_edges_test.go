package server

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// HEAD /events asks for the stream's headers alone: the answer ends with
// them, so the connection's next request is served, and the stream slot
// is not held for as long as the connection lives.
func TestHeadEventsEnds(t *testing.T) {
	ts := newTestServer(t, "", true)
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	req := "HEAD /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + testToken + "\r\n\r\n"
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	hr, _ := http.NewRequest(http.MethodHead, ts.url+"/events", nil)
	resp, err := http.ReadResponse(br, hr)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("HEAD /events: %d %q, want 200 text/event-stream", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	// The same connection's next request.
	if _, err := conn.Write([]byte("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	gr, _ := http.NewRequest(http.MethodGet, ts.url+"/health", nil)
	resp, err = http.ReadResponse(br, gr)
	if err != nil {
		t.Fatalf("GET /health after HEAD /events on one connection: %v (the HEAD answer never ended)", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /health after HEAD /events: %d", resp.StatusCode)
	}
}
