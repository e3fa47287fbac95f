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

// An unsubscribe of an id the connection does not hold (another
// connection's, or one of a connection since closed) was answered only
// "subscription … not found on this connection": the client could not
// tell which ones it holds, nor why its id was not one. The NotFound now
// names the connection's subscriptions (data.details.held) and says a
// subscription belongs to the connection that made it.
func TestUnsubscribeUnknownNamesHeld(t *testing.T) {
	ts := newTestServer(t, "", false)
	dialEx := func() (func(string) map[string]any, func()) {
		conn, err := net.Dial("unix", ts.sock)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
		r := bufio.NewReader(conn)
		return func(line string) map[string]any {
			t.Helper()
			if _, err := io.WriteString(conn, line+"\n"); err != nil {
				t.Fatal(err)
			}
			b, err := r.ReadBytes('\n')
			if err != nil {
				t.Fatalf("%s: no reply: %v", line, err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			return m
		}, func() { conn.Close() }
	}
	a, closeA := dialEx()
	defer closeA()
	b, closeB := dialEx()
	defer closeB()
	res, _ := a(`{"jsonrpc":"2.0","id":1,"method":"aios/registry.subscribe"}`)["result"].(map[string]any)
	if res == nil {
		t.Fatal("subscribe on a failed")
	}
	subA := res["subscription"].(string)
	// b holds none.
	m := b(`{"jsonrpc":"2.0","id":2,"method":"aios/registry.unsubscribe","params":{"subscription":"` + subA + `"}}`)
	e, _ := m["error"].(map[string]any)
	if errCode(m) != -32001 || e == nil || !strings.Contains(e["message"].(string), "which holds none") || !strings.Contains(e["message"].(string), "belongs to the connection that made it") {
		t.Fatalf("unsubscribe of another connection's %s: %v; want NotFound saying this connection holds none", subA, m)
	}
	// b subscribes, then names a's id: its own is named.
	res, _ = b(`{"jsonrpc":"2.0","id":3,"method":"aios/registry.subscribe"}`)["result"].(map[string]any)
	subB := res["subscription"].(string)
	m = b(`{"jsonrpc":"2.0","id":4,"method":"aios/registry.unsubscribe","params":{"subscription":"` + subA + `"}}`)
	e, _ = m["error"].(map[string]any)
	if errCode(m) != -32001 || e == nil || !strings.Contains(e["message"].(string), "which holds "+subB) {
		t.Fatalf("unsubscribe of %s on a connection holding %s: %v; want its own named", subA, subB, m)
	}
	d, _ := e["data"].(map[string]any)
	det, _ := d["details"].(map[string]any)
	if held, _ := det["held"].([]any); len(held) != 1 || held[0] != subB || det["subscription"] != subA {
		t.Fatalf("details %v; want subscription %s and held [%s]", det, subA, subB)
	}
	// Both still hold theirs.
	if m := a(`{"jsonrpc":"2.0","id":5,"method":"aios/registry.unsubscribe","params":{"subscription":"` + subA + `"}}`); m["result"] == nil {
		t.Fatalf("a's own unsubscribe: %v", m)
	}
}
