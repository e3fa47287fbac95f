package mcpserver

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestCloseWithUnreadLogStream: Close cancels the calls in flight and
// returns once they have (and, at most a second, for their answers to be
// written), also when a call's client stopped reading the POST whose
// stream carries its log messages: the call's messages still waiting to
// be sent are given up, as its answer is. The forwarder waited for them,
// so Close waited for the write to fail (writeTimeout, 30 s by default).
func TestCloseWithUnreadLogStream(t *testing.T) {
	s, base := anonHTTP(t, "")
	s.writeTimeout = 10 * time.Minute // a write stuck in the unread stream stays stuck
	var logged atomic.Int64
	p := native.New(abi.ProviderInfo{ID: "org.test.flood"})
	line := strings.Repeat("x", 8<<10)
	p.MustRegister(abi.ToolDef{Name: "flood", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			for ctx.Err() == nil {
				env.Logger().Debug(line)
				logged.Add(1)
			}
			return nil, ctx.Err()
		})
	if err := s.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	waitExported(t, s, "flood")
	ended := make(chan host.CallStats, 4)
	defer s.h.OnCall(func(st host.CallStats) { ended <- st })()
	sid := initSession(t, base)
	if a := post(t, base, `{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"debug"}}`, map[string]string{sessionHeader: sid}); a.status != 200 {
		t.Fatalf("setLevel: %d %s", a.status, a.body)
	}
	u, _ := url.Parse(base)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"flood","arguments":{}}}`
	// The client sends the call and reads nothing.
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%s: %s\r\n%s: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s",
		Path, u.Host, sessionHeader, sid, versionHeader, len(body), body)
	// 256 MB of messages offered: far more than the socket buffers hold.
	testutil.Eventually(t, "the tool logged 256 MB", func() bool { return logged.Load() > 1<<15 })
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return within 30 s: it waits for log messages the client does not read")
	}
	select {
	case st := <-ended:
		if st.Code != abi.Cancelled {
			t.Errorf("call ended %q, want Cancelled", st.Code)
		}
	default:
		t.Error("Close returned before the call ended")
	}
}
