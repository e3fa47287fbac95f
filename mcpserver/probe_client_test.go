package mcpserver

import (
	"strings"
	"testing"
)

// TestProbeHugeNumberID: an MCP id must be a string or an integer the
// go-sdk reads exactly, and an inexact one (1.5, 2^60) is refused naming
// the id. A number past a float64 — 1e999, or 400 digits — was refused
// too, but over HTTP as "not a JSON-RPC 2.0 message" (which it is) and on
// stdio in Go's words ("cannot unmarshal … into Go struct field
// jsonrpc2.wireDecode.id of type float64"). It gets the same answer as any
// inexact id, with the id, shortened.
func TestProbeHugeNumberID(t *testing.T) {
	big := strings.Repeat("9", 400)
	ids := []string{"1e999", big, "-" + big}
	_, base := anonHTTP(t, "")
	a := post(t, base, initBody, nil)
	h := map[string]string{sessionHeader: a.header.Get(sessionHeader), versionHeader: "2025-06-18"}
	post(t, base, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.initialize("2025-06-18")
	for _, id := range ids {
		body := `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`
		a := post(t, base, body, h)
		_, msg, _ := strings.Cut(a.body, `"message"`)
		if a.status != 400 || !strings.Contains(msg, "is not an integer of at most 2^53") || strings.Contains(msg, big) {
			t.Errorf("HTTP, id %.20s…: %d %.300s; want 400 naming the id (shortened) and what an id must be", id, a.status, a.body)
		}
		ss.send(body)
		if got := ss.mustRead(); !strings.Contains(got, "is not an integer of at most 2^53") || strings.Contains(got, "Go struct") {
			t.Errorf("stdio, id %.20s…: %.300s", id, got)
		}
		ss.send("[" + body + "]")
		if got := ss.mustRead(); !strings.Contains(got, "is not an integer of at most 2^53") || strings.Contains(got, "Go struct") {
			t.Errorf("stdio batch, id %.20s…: %.300s", id, got)
		}
	}
}
