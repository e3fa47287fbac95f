package server

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// ServeConn(nil, agent) and ServeHTTPListener(nil) panicked with a nil
// pointer dereference (in the embedder's goroutine, taking the program
// down). Now each serves nothing, logs why naming the method, and the
// server still closes cleanly.
func TestNilConnAndListenerAreRefusedNotPanic(t *testing.T) {
	ts := newTestServer(t, "", false)
	var buf bytes.Buffer
	s, err := New(Options{Host: ts.h, Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	s.ServeConn(nil, "cli")
	s.ServeHTTPListener(nil)
	for _, want := range []string{"ServeConn", "ServeHTTPListener"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("log %q does not name %s", buf.String(), want)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
