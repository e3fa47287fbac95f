package jsonrpc

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A server (a remote adapter on a unix endpoint) that answers one request
// twice must not wedge the client's reader: later calls still get their
// answers.
func TestDuplicateResponseDoesNotWedgeClient(t *testing.T) {
	cs, ss := net.Pipe()
	defer cs.Close()
	defer ss.Close()
	go func() {
		r := bufio.NewReader(ss)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			var req Request
			_ = json.Unmarshal(line, &req)
			resp, _ := json.Marshal(Response{JSONRPC: Version, ID: req.ID, Result: json.RawMessage(`1`)})
			resp = append(resp, '\n')
			_, _ = ss.Write(resp)
			_, _ = ss.Write(resp) // again
			_, _ = ss.Write(resp) // and again
		}
	}()
	c := NewConnClient(cs)
	for i := 0; i < 3; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		var n int
		err := c.Call(ctx, "m", nil, &n)
		cancel()
		if err != nil || n != 1 {
			t.Fatalf("call %d: %v (%d)", i, err, n)
		}
	}
}

// bigAnswer is a response whose result is 7 million empty objects (about
// 14 MiB, under MaxMessageBytes) that decode to gigabytes of maps.
func bigAnswer(id string) []byte {
	var b []byte
	b = append(b, `{"jsonrpc":"2.0","id":`+id+`,"result":{"value":[`...)
	for i := 0; i < 7_000_000; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{', '}')
	}
	return append(b, "]}}\n"...)
}

func allocated() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// An answer from a remote adapter is untrusted, as an MCP server's: one
// that would decode to more than the decode budget is refused before it is
// decoded, over HTTP and over a socket (where the connection is dropped:
// which call the refused message answered is unknown).
func TestRemoteAnswerDecodeBudget(t *testing.T) {
	body := bigAnswer(`"1"`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	before := allocated()
	err := NewHTTPClient(srv.URL, "", nil).Call(context.Background(), "tools/call", nil, new(any))
	if got := allocated() - before; err == nil || got > 200<<20 {
		t.Errorf("HTTP: %v after allocating %d MiB", err, got>>20)
	} else if !strings.Contains(err.Error(), "decode") {
		t.Errorf("HTTP: %v", err)
	}

	cs, ss := net.Pipe()
	defer cs.Close()
	defer ss.Close()
	go func() {
		r := bufio.NewReader(ss)
		if _, err := r.ReadBytes('\n'); err != nil {
			return
		}
		_, _ = ss.Write(body)
	}()
	before = allocated()
	err = NewConnClient(cs).Call(context.Background(), "tools/call", nil, new(any))
	if got := allocated() - before; err == nil || got > 200<<20 {
		t.Errorf("socket: %v after allocating %d MiB", err, got>>20)
	} else if !strings.Contains(err.Error(), "decode") {
		t.Errorf("socket: %v", err)
	}
}

// TestAnswerThenCloseIsAnswered: a server that answers a request and then
// closes the connection (one shutting down answers its calls Cancelled,
// then closes) gave the caller "the server closed the connection" when
// its answer and the end were both in by the time the caller waited for
// them: select picked either (server TestShutdownCancelSaysWhy failed so
// once in a clean-clone run). The answer counts.
func TestAnswerThenCloseIsAnswered(t *testing.T) {
	testHookBeforeWait = func(c *Client) { <-c.done } // the answer and the end both in
	defer func() { testHookBeforeWait = nil }()
	for i := range 40 {
		cs, ss := net.Pipe()
		go func() {
			r := bufio.NewReader(ss)
			line, err := r.ReadBytes('\n')
			if err != nil {
				ss.Close()
				return
			}
			var req Request
			_ = json.Unmarshal(line, &req)
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": "bye"})
			_, _ = ss.Write(append(b, '\n'))
			ss.Close()
		}()
		c := NewConnClient(cs)
		var got string
		if err := c.Call(context.Background(), "m", nil, &got); err != nil || got != "bye" {
			t.Fatalf("call %d: %q, %v; want the answer sent before the close", i, got, err)
		}
		c.Close()
	}
}
