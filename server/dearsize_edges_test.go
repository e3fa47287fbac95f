package server

import (
	"context"
	"strings"
	"testing"
)

// TestTooDearRefusalSaysBoundUnderMiB: the refusal of a message that would
// decode past server.max_body_bytes × 16 names that bound in a unit that
// shows it: with max_body_bytes 4096 it said "more than 0 MiB of host
// memory"; it says 64 KiB now.
func TestTooDearRefusalSaysBoundUnderMiB(t *testing.T) {
	ts := newTestServer(t, "  max_body_bytes: 4096\n", false)
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"value":[` +
		strings.TrimSuffix(strings.Repeat("{},", 1300), ",") + `]}}}`
	out := string(ts.s.handleMessage(context.Background(), nil, []byte(msg)))
	if !strings.Contains(out, "server.max_body_bytes") || strings.Contains(out, " 0 MiB") || !strings.Contains(out, "64 KiB") {
		t.Fatalf("answer %.400s; want the bound given as 64 KiB", out)
	}
}
