package server

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"
)

// An EventSource reconnects by itself after a dropped connection, sending
// the Last-Event-ID of the stream it lost; the changes made while it was
// away are not replayed, so the new stream opens with an overflow
// notification (re-list), as a subscriber that fell behind gets. For the
// client to send that header at all, the stream gives it an id.
func TestEventsReconnectSaysRelist(t *testing.T) {
	ts := newTestServer(t, "", true)
	open := func(lastID string) (*bufio.Reader, []string) {
		req, _ := http.NewRequest(http.MethodGet, ts.url+"/events", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /events: %d", resp.StatusCode)
		}
		br := bufio.NewReader(resp.Body)
		var block []string
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("GET /events: reading the opening: %v", err)
			}
			if line = strings.TrimRight(line, "\n"); line == "" {
				return br, block
			}
			block = append(block, line)
		}
	}
	_, opening := open("")
	id := ""
	for _, l := range opening {
		if v, ok := strings.CutPrefix(l, "id:"); ok {
			id = strings.TrimSpace(v)
		}
	}
	if id == "" {
		t.Fatalf("the stream's opening %q has no id: a client that reconnects cannot say it lost the stream", opening)
	}
	br, _ := open(id)
	got := make(chan string, 1)
	go func() {
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				got <- "error: " + err.Error()
				return
			}
			if strings.HasPrefix(line, "data: ") {
				got <- line
				return
			}
		}
	}()
	select {
	case line := <-got:
		if !strings.Contains(line, `"overflow":true`) {
			t.Fatalf("reconnected stream (Last-Event-ID: %s) sent %s first; want an overflow notification", id, line)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("reconnected stream (Last-Event-ID: %s): nothing in 5 s; want an overflow notification (changes while away are lost)", id)
	}
}
