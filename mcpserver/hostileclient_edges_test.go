package mcpserver

import (
	"fmt"
	"strings"
	"testing"
)

// TestHugeNumberID: an MCP id must be a string or an integer the
// go-sdk reads exactly, and an inexact one (1.5, 2^60) is refused naming
// the id. A number past a float64 — 1e999, or 400 digits — was refused
// too, but over HTTP as "not a JSON-RPC 2.0 message" (which it is) and on
// stdio in Go's words ("cannot unmarshal … into Go struct field
// jsonrpc2.wireDecode.id of type float64"). It gets the same answer as any
// inexact id, with the id, shortened.
func TestHugeNumberID(t *testing.T) {
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

// batchOf is a JSON-RPC batch of n pings.
func batchOf(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)
	}
	return b.String() + "]"
}

// TestBatchBounded: MCP 2025-03-26 allows JSON-RPC batches, and
// nothing bounded their length: the go-sdk decodes each member with a
// fresh decoder (about 64 KB each), so one 4 MB POST of 90,000 pings cost
// 6 GB of allocations and 25 s — 3 s and 5.8 GB just to be refused on a
// 2025-06-18 session, which takes no batches — from any client that may
// open a session. A batch of more than 100 members is refused before
// anything is decoded, over HTTP and on stdio, naming the limit.
func TestBatchBounded(t *testing.T) {
	_, base := anonHTTP(t, "")
	for _, ver := range []string{"2025-03-26", "2025-06-18"} {
		a := post(t, base, strings.Replace(initBody, "2025-06-18", ver, 1), nil)
		h := map[string]string{sessionHeader: a.header.Get(sessionHeader), versionHeader: ver}
		post(t, base, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
		if a := post(t, base, batchOf(20_000), h); a.status != 400 || !strings.Contains(a.body, "batch of 20000 messages exceeds the limit of 100") {
			t.Errorf("%s: a batch of 20000: %d %.300s", ver, a.status, a.body)
		}
		if ver == "2025-03-26" {
			if a := post(t, base, batchOf(100), h); a.status != 200 || strings.Count(a.body, `"result"`) != 100 {
				t.Errorf("%s: a batch of 100: %d %.300s", ver, a.status, a.body)
			}
		}
	}
	_, s := newTestHost(t, "")
	ss := newStdioSession(t, s)
	ss.initialize("2025-03-26")
	ss.send(batchOf(20_000))
	if got := ss.mustRead(); !strings.Contains(got, "batch of 20000 messages exceeds the limit of 100") {
		t.Errorf("stdio: a batch of 20000: %.300s", got)
	}
}
