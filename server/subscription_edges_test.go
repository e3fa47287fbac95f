package server

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	dto "github.com/prometheus/client_model/go"
)

// An unsubscribe whose subscription is "" (an id the client lost: an unset
// variable) names no subscription. It was taken as one without the
// member and ended every subscription of the connection; it is refused,
// and the subscriptions stay.
func TestUnsubscribeEmptyIDEndsNothing(t *testing.T) {
	ts := newTestServer(t, "", false)
	conn, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(conn)
	exchange := func(line string) map[string]any {
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
	}
	for _, id := range []string{"a", "b"} {
		if m := exchange(`{"jsonrpc":"2.0","id":"` + id + `","method":"aios/registry.subscribe"}`); m["result"] == nil {
			t.Fatalf("subscribe: %v", m)
		}
	}
	m := exchange(`{"jsonrpc":"2.0","id":"u","method":"aios/registry.unsubscribe","params":{"subscription":""}}`)
	if errCode(m) != -32602 || !strings.Contains(m["error"].(map[string]any)["message"].(string), `subscription is ""`) {
		t.Fatalf(`unsubscribe of subscription "": %v; want -32602 saying it is empty`, m)
	}
	// Both subscriptions still notify.
	if err := ts.h.AddProvider(t.Context(), nativeProvider("org.test.other", "o-"), host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	subs := map[string]bool{}
	for range 2 {
		b, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("notification: %v (subscriptions ended by the refused unsubscribe?)", err)
		}
		var n struct {
			Method string       `json:"method"`
			Params ToolsChanged `json:"params"`
		}
		if err := json.Unmarshal(b, &n); err != nil || n.Method != NotificationToolsChanged {
			t.Fatalf("want a notification, got %s", b)
		}
		subs[n.Params.Subscription] = true
	}
	if len(subs) != 2 {
		t.Fatalf("notifications of subscriptions %v; want both", subs)
	}
	// Left out, or null, it ends every subscription of the connection.
	m = exchange(`{"jsonrpc":"2.0","id":"u","method":"aios/registry.unsubscribe","params":{"subscription":null}}`)
	if got, _ := m["result"].(map[string]any)["unsubscribed"].([]any); len(got) != 2 {
		t.Fatalf("unsubscribe with subscription null: %v; want both ended", m)
	}
}

// GET /events?events= (an empty list: ?events=$EVENTS with EVENTS unset)
// streamed every event, where aios/registry.subscribe's "events": [] is
// refused as empty. It is refused 400 saying so; ?events=added&events=
// still streams the additions.
func TestEventsEmptyFilterRefused(t *testing.T) {
	ts := newTestServer(t, "", true)
	for _, q := range []string{"events=", "events=&events="} {
		req, _ := http.NewRequest(http.MethodGet, ts.url+"/events?"+q, nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusBadRequest { // (a stream: not read)
			resp.Body.Close()
			t.Errorf("GET /events?%s: %d; want 400 saying the list is empty", q, resp.StatusCode)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), "events= of GET /events is empty") {
			t.Errorf("GET /events?%s: %d %s; want 400 saying the list is empty", q, resp.StatusCode, b)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, ts.url+"/events?events=added&events=", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /events?events=added&events=: %d", resp.StatusCode)
	}
}

// A subscriber that shuts down its write side after subscribing
// (`echo '{…subscribe…}' | nc -NU SOCKET`, socat at the end of its input)
// is still reading: it got the answer and then EOF, its subscription
// ended by the server. It gets the notifications until it hangs up, when
// the subscription ends.
func TestHalfClosedSubscriberGetsNotifications(t *testing.T) {
	ts := newTestServer(t, "", false)
	conn, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, `{"jsonrpc":"2.0","id":1,"method":"aios/registry.subscribe"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	if err := conn.(*net.UnixConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	if b, err := r.ReadBytes('\n'); err != nil || !strings.Contains(string(b), `"subscription":"sub-1"`) {
		t.Fatalf("subscribe answer: %s %v", b, err)
	}
	if err := ts.h.AddProvider(t.Context(), nativeProvider("org.test.other", "o-"), host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	b, err := r.ReadBytes('\n')
	if err != nil || !strings.Contains(string(b), NotificationToolsChanged) || !strings.Contains(string(b), "org.test.other") {
		t.Fatalf("after the write side was shut: %q %v; want the tools_changed notification", b, err)
	}
	conn.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var m dto.Metric
		_ = ts.s.metrics.subscribers.Write(&m)
		if m.GetGauge().GetValue() == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the subscription outlived its connection")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
