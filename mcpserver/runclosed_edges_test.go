package mcpserver

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// Run after Close started a stdio session that lived until its transport
// ended (a client that keeps stdin open: forever), though Close ends the
// server and an HTTP request after Close is refused (503); and Run with a
// nil transport panicked with a nil pointer dereference. Now both return an
// error at once.
func TestRunAfterCloseOrWithoutTransportIsError(t *testing.T) {
	_, s := newTestHost(t, "")
	if err := s.Run(context.Background(), nil); err == nil {
		t.Error("Run with a nil transport: err = nil, want an error")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), s.Stdio(c1, c1)) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Run after Close: err = nil, want an error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run after Close still serving after 10 s (its transport is open)")
	}
}

// A zero Server (declared, not made with New) panicked with a nil pointer
// dereference in Run and Close. Now Run says it was not made with New and
// Close is nil.
func TestZeroServerRunIsErrorCloseIsNil(t *testing.T) {
	var s Server
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	if err := s.Run(context.Background(), s.Stdio(c1, c1)); err == nil || !strings.Contains(err.Error(), "mcpserver.New") {
		t.Errorf("Run of a zero Server: err = %v, want one naming mcpserver.New", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close of a zero Server = %v, want nil", err)
	}
}
