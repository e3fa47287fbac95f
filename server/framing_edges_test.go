package server

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// socketReply sends data on a new socket connection and returns the first
// reply line, decoded.
func socketReply(t *testing.T, ts *testServer, data string) map[string]any {
	t.Helper()
	conn, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, data); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		t.Fatalf("no reply to a message of %d bytes: %v", len(data), err)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("reply %q: %v", line, err)
	}
	return m
}

// A socket message is at most server.max_body_bytes, as an HTTP body is:
// the line's "\n" (or "\r\n") is not part of it. A message of exactly
// max_body_bytes was refused as "longer than 1024 bytes" on the socket
// while the same bytes over HTTP were served.
func TestSocketMessageOfMaxBodyBytesServed(t *testing.T) {
	for _, max := range []int{1024, 200_000} { // (the second past the reader's 64 KiB buffer)
		socketMessageOfMaxBodyBytes(t, max)
	}
}

func socketMessageOfMaxBodyBytes(t *testing.T, max int) {
	ts := newTestServer(t, "  max_body_bytes: "+strconv.Itoa(max)+"\n", true)
	msg := func(n int) string {
		head := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"value":"`
		tail := `"}}}`
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	exact := msg(max)
	if code, body := httpPost(t, ts.url+"/rpc", testToken, "application/json", exact); code != 200 || !strings.Contains(string(body), `"result"`) {
		t.Fatalf("HTTP body of max_body_bytes: %d %s", code, body)
	}
	for _, end := range []string{"\n", "\r\n"} {
		if m := socketReply(t, ts, exact+end); m["result"] == nil || m["id"] != 1.0 {
			t.Errorf("socket message of max_body_bytes %d ending %q: %.300v; want its result", max, end, m)
		}
		m := socketReply(t, ts, msg(max+1)+end)
		if errCode(m) != -32012 || !strings.Contains(m["error"].(map[string]any)["message"].(string), "server.max_body_bytes") {
			t.Errorf("socket message of max_body_bytes %d + 1 ending %q: %.300v; want -32012 naming server.max_body_bytes", max, end, m)
		}
	}
}
