package mcpserver

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/host"
)

// An MCP client ends a stdio session by closing the server's standard
// input (the MCP stdio shutdown). The go-sdk cancels the calls in flight
// with the read error as cause, io.EOF, and that bare "EOF" became the
// Cancelled call's message in its audit record ("EOF (tool slowpy: the
// call was cancelled; …)"): nothing said the client had gone.
func TestStdinEOFCancelSaysClientClosed(t *testing.T) {
	h, s := newTestHostWith(t, "", func(o *host.Options) {
		aw, err := audit.Open(o.Config.AuditPath(), audit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		o.Audit = aw
	})
	started := make(chan struct{}, 1)
	addSlowTool(t, h, started)
	waitExported(t, s, "slow")
	inR, inW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), StdioTransport(inR, io.Discard)) }()
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
	_ = inW.Close() // the client ends the session
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its input ended")
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	var msg string
	for _, r := range auditRecords(t, h) {
		if r["tool"] == "slow" {
			msg, _ = r["error"].(string)
		}
	}
	if msg == "" {
		t.Fatal("no audit record of the cancelled call, or one without an error")
	}
	if strings.HasPrefix(msg, "EOF") || !strings.Contains(msg, "client closed") {
		t.Fatalf("the record of a call cancelled because the MCP client closed the session says %q; want it to say the client closed it", msg)
	}
}
