package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestCallsPerSessionBounded: past mcp.http.max_calls_per_session a
// session's next tools/call is a RateLimited result naming the key, without
// running; another session's calls are not counted, and a call that ends
// makes room.
func TestCallsPerSessionBounded(t *testing.T) {
	s, base := anonHTTP(t, "    max_calls_per_session: 2\n")
	defer s.Close()
	started, release := make(chan struct{}, 4), make(chan struct{})
	var once sync.Once
	defer once.Do(func() { close(release) })
	p := native.New(abi.ProviderInfo{ID: "org.test.gate"})
	p.MustRegister(abi.ToolDef{Name: "gate", MCPExportable: true, Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, _ any, _ abi.Env) (any, error) {
			started <- struct{}{}
			select {
			case <-release:
				return "through", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	if err := s.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); !contains(s.Tools(), "gate"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("gate not exported")
		}
	}
	sid, other := initSession(t, base), initSession(t, base)
	h := map[string]string{sessionHeader: sid, versionHeader: "2025-06-18"}
	answers := make(chan httpAnswer, 2)
	for i := range 2 {
		go func() {
			answers <- post(t, base, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"gate","arguments":{}}}`, i+1), h)
		}()
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatalf("gate call %d did not start", i+1)
		}
	}
	echo := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"value":"hi"}}}`
	a := post(t, base, echo, h)
	if !strings.Contains(a.body, `"isError":true`) || !strings.Contains(a.body, "RateLimited") || !strings.Contains(a.body, "mcp.http.max_calls_per_session") {
		t.Fatalf("third call of the session: %d %s", a.status, a.body)
	}
	a = post(t, base, echo, map[string]string{sessionHeader: other, versionHeader: "2025-06-18"})
	if a.status != 200 || strings.Contains(a.body, `"isError":true`) || !strings.Contains(a.body, "hi") {
		t.Fatalf("another session's call: %d %s", a.status, a.body)
	}
	once.Do(func() { close(release) })
	for range 2 {
		if a := <-answers; !strings.Contains(a.body, "through") {
			t.Fatalf("gate call: %d %s", a.status, a.body)
		}
	}
	if a := post(t, base, echo, h); a.status != 200 || strings.Contains(a.body, `"isError":true`) {
		t.Fatalf("the session's call after its calls ended: %d %s", a.status, a.body)
	}
}
