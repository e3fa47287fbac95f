package server

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestTooDearRequestKeepsID: a single request refused because what it
// would decode to passes its bound (server.max_body_bytes × 16) is
// answered with its own id, as the refusal for want of
// limits.max_decode_bytes is. It was answered with id null, which a
// client with several requests in flight cannot match to any of them.
func TestTooDearRequestKeepsID(t *testing.T) {
	ts := newTestServer(t, "  max_body_bytes: 4096\n", false)
	msg := `{"jsonrpc":"2.0","id":"dear-3","method":"tools/call","params":{"name":"echo","arguments":{"value":[` +
		strings.TrimSuffix(strings.Repeat("{},", 1300), ",") + `]}}}`
	if len(msg) >= 4096 {
		t.Fatalf("the message is %d bytes; want it under max_body_bytes", len(msg))
	}
	conn, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, msg+"\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	e, _ := m["error"].(map[string]any)
	if e == nil || !strings.Contains(e["message"].(string), "server.max_body_bytes") {
		t.Fatalf("answer %.300s; want a refusal naming server.max_body_bytes", line)
	}
	if m["id"] != "dear-3" {
		t.Fatalf("answer %.300s; want the request's id dear-3", line)
	}
}
