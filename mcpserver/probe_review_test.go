package mcpserver

import (
	"bufio"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// waitGETs waits until session sid has active GET streams served by the
// go-sdk and parked ones as given; false after 5 s.
func waitGETs(s *Server, sid string, active, parked int) bool {
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(2 * time.Millisecond) {
		s.getMu.Lock()
		a, p := len(s.gets[sid]), len(s.parked[sid])
		s.getMu.Unlock()
		if a == active && p == parked {
			return true
		}
	}
	return false
}

// TestProbeParkedStreamResumes: a second GET of a session took the
// stream over and the first was parked — open, silent — but when the
// second's client then closed it (a client that keeps two streams open
// and lets one go, a probe, a reconnect that gave up), the first stayed
// parked: the session had an open GET stream that got nothing, and the
// client, its stream open, had no reason to reopen it and heard no
// tools/list_changed for the rest of the session (before the takeover,
// the first stream kept the messages). The newest parked stream now takes
// the messages again when the stream serving them ends.
func TestProbeParkedStreamResumes(t *testing.T) {
	_, s := newTestHost(t, "mcp:\n  http:\n    anonymous_agent: mcp\n")
	base := newHTTPTestServer(t, s)
	sid := initSession(t, base)
	first := openGET(t, base, sid)
	defer first.Body.Close()
	second := openGET(t, base, sid)
	if first.StatusCode != 200 || second.StatusCode != 200 {
		t.Fatalf("GETs: %d, %d", first.StatusCode, second.StatusCode)
	}
	if !waitGETs(s, sid, 1, 1) {
		t.Fatal("the first GET was not parked beside the second")
	}
	second.Body.Close()
	if !waitGETs(s, sid, 1, 0) {
		t.Fatal("the second GET stream ended and the first is still parked: the session's messages reach no stream")
	}
	p := native.New(abi.ProviderInfo{ID: "org.test.more"})
	p.MustRegister(abi.ToolDef{Name: "more", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "x", nil })
	if err := s.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(first.Body)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "notifications/tools/list_changed") {
				got <- sc.Text()
				return
			}
		}
		got <- ""
	}()
	select {
	case l := <-got:
		if l == "" {
			t.Fatal("the first GET stream ended without tools/list_changed")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no tools/list_changed on the first GET stream, the session's only one")
	}
}
