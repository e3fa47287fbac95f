package mcpserver

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestSessionCapAudited: a tools/call refused because its session
// already runs mcp.http.max_calls_per_session calls is a refused call like
// any other: it has its audit record (RateLimited, with the session) and
// the call observers (metrics) see it. It had neither, so a client kept at
// its cap left no trace.
func TestSessionCapAudited(t *testing.T) {
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	aw, err := audit.Open(auditPath, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, s := newTestHostWith(t, "mcp:\n  http:\n    anonymous_agent: mcp\n    max_calls_per_session: 1\n", func(o *host.Options) { o.Audit = aw })
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	base := srv.URL
	var mu sync.Mutex
	var seen []host.CallStats
	defer h.OnCall(func(st host.CallStats) { mu.Lock(); seen = append(seen, st); mu.Unlock() })()
	started, release := make(chan struct{}, 1), make(chan struct{})
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
	if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); !contains(s.Tools(), "gate"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("gate not exported")
		}
	}
	sid := initSession(t, base)
	hd := map[string]string{sessionHeader: sid, versionHeader: "2025-06-18"}
	answer := make(chan httpAnswer, 1)
	go func() {
		answer <- post(t, base, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gate","arguments":{}}}`, hd)
	}()
	<-started
	a := post(t, base, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"value":"hi"}}}`, hd)
	// The message names the call refused, as the host's rate buckets'
	// do (found by p117).
	if !strings.Contains(a.body, "RateLimited") || !strings.Contains(a.body, "mcp.http.max_calls_per_session") || !strings.Contains(a.body, "call of echo") {
		t.Fatalf("second call of the session: %s", a.body)
	}
	if !strings.Contains(a.body, `"data":{"limit":"mcp.http.max_calls_per_session"}`) {
		t.Fatalf("second call of the session: %s; want its error data to name the limit's key, as a rate bucket's does", a.body)
	}
	once.Do(func() { close(release) })
	<-answer
	mu.Lock()
	var refused []host.CallStats
	for _, st := range seen {
		if st.Code == abi.RateLimited {
			refused = append(refused, st)
		}
	}
	mu.Unlock()
	if len(refused) != 1 || refused[0].Tool != "echo" || refused[0].Caller != "mcp" {
		t.Fatalf("observers saw %+v, want one RateLimited echo by mcp", refused)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(auditPath)
	var rec string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, `"outcome":"RateLimited"`) {
			rec = line
		}
	}
	if !strings.Contains(rec, `"tool":"echo"`) || !strings.Contains(rec, "max_calls_per_session") || !strings.Contains(rec, `"session":"`+sid+`"`) {
		t.Fatalf("audit record of the refused call: %q\nlog:\n%s", rec, data)
	}
}
