package mcpserver

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/host"
)

// `aios-host mcp` on SIGTERM (Run's ctx done) with a call in flight: the
// go-sdk closes the session only after its requests finish, and nothing
// cancelled the calls, so the process waited for the tool to end by itself
// (up to limits.max_deadline, 10 min; a 15 s js sleep took 13 s after the
// signal). `run` cancels its calls at shutdown; so must Run.
func TestRunCancelsCallsWhenDone(t *testing.T) {
	h, s := newTestHost(t, "")
	started := make(chan struct{}, 1)
	addSlowTool(t, h, started)
	for deadline := time.Now().Add(5 * time.Second); !contains(s.Tools(), "slow"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("slow not exported")
		}
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	defer inW.Close()
	defer outR.Close()
	lines := make(chan string, 16)
	go func() {
		r := bufio.NewReader(outR)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- strings.TrimSpace(l)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, StdioTransport(inR, outW)) }()
	send := func(l string) {
		if _, err := io.WriteString(inW, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	<-lines
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool did not start")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("Run did not return within 3 s of its ctx ending: the call in flight was not cancelled")
	}
}

// `aios-host run` stops its /mcp server (Server.Close) and then closes the
// host, which closes the audit log. Close did not wait for (nor cancel) the
// MCP calls in flight: a tools/call over /mcp running at SIGTERM ended after
// the audit log had closed, and its record was dropped (no line in the log
// for a call that ran).
func TestCloseEndsCallsInFlight(t *testing.T) {
	h, s := newTestHost(t, "")
	started := make(chan struct{}, 1)
	addSlowTool(t, h, started)
	for deadline := time.Now().Add(5 * time.Second); !contains(s.Tools(), "slow"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("slow not exported")
		}
	}
	var ended atomic.Int32
	defer h.OnCall(func(st host.CallStats) {
		if st.Tool == "slow" {
			ended.Add(1)
		}
	})()
	cs := connectInMemory(t, s, nil)
	go func() {
		_, _ = cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "slow", Arguments: map[string]any{}})
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the tool did not start")
	}
	closed := make(chan struct{})
	go func() { _ = s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
	if ended.Load() != 1 {
		t.Fatal("Close returned while an MCP call was still in flight (the host closes its audit log next)")
	}
	// A call after Close is refused, not run.
	r, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "echo", Arguments: map[string]any{"value": 1}})
	if err == nil && !r.IsError {
		t.Fatalf("a call after Close ran: %+v", r)
	}
}
