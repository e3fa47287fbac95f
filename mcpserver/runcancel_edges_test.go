package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// `aios-host mcp` ends its session when Run's ctx ends (SIGINT, SIGTERM,
// SIGHUP). The calls in flight were cancelled, but the go-sdk closed the
// session first and dropped every answer written after: the client saw
// its output end without an answer to the calls it was waiting on, where
// `run`'s socket and /mcp answer them "the host is shutting down"
// (docs/mcp.md, Shutdown). Each call in flight is now answered so before
// the session ends.
func TestRunCancelAnswersCallsInFlight(t *testing.T) {
	h, s := newTestHost(t, "")
	started := make(chan struct{}, 1)
	addSlowTool(t, h, started)
	waitExported(t, s, "slow")
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- s.Run(ctx, newStdioTransport(inR, outW, time.Second))
		_ = outW.Close()
	}()
	answers := make(chan map[string]any, 8)
	go func() {
		defer close(answers)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				answers <- m
			}
		}
	}()
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`,
	} {
		if _, err := io.WriteString(inW, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the tool did not start")
	}
	cancel() // SIGTERM
	var got map[string]any
	timeout := time.After(10 * time.Second)
	for got == nil {
		select {
		case m, ok := <-answers:
			if !ok {
				t.Fatal("the session ended without answering the call in flight at SIGTERM")
			}
			if id, _ := m["id"].(float64); id == 1 && m["id"] != nil {
				got = m
			}
		case <-timeout:
			t.Fatal("no answer to the call in flight 10 s after SIGTERM")
		}
	}
	b, _ := json.Marshal(got)
	res, _ := got["result"].(map[string]any)
	if res == nil || res["isError"] != true || !strings.Contains(string(b), "the host is shutting down") {
		t.Fatalf("the call in flight at SIGTERM was answered %s; want an error result saying the host is shutting down", b)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its ctx ended")
	}
}
