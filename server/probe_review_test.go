package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestProbeRPCCallLongerThanWriteTimeout: POST /rpc sets a write deadline
// of server.write_timeout as it starts (for its refusals) and again once
// the answer is ready; a call that runs past the first still gets its
// answer (write_timeout bounds writing it, not the call) (no defect).
func TestProbeRPCCallLongerThanWriteTimeout(t *testing.T) {
	ts := newTestServer(t, "  write_timeout: 20ms\n", true)
	release, started := make(chan struct{}), make(chan struct{})
	p := native.New(abi.ProviderInfo{ID: "org.test.slow", Version: "1.0.0"})
	p.MustRegister(abi.ToolDef{Name: "probe_slow", Parameters: map[string]any{"type": "object"}},
		func(ctx context.Context, _ any, _ abi.Env) (any, error) {
			close(started)
			<-release
			return "done", nil
		})
	if err := ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		status, body := httpPost(t, ts.url+"/rpc", testToken, "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"probe_slow"}}`)
		got <- fmt.Sprintf("%d %s", status, body)
	}()
	// The first deadline passes while the call runs (waiting longer
	// only makes it surer).
	<-started
	time.Sleep(60 * time.Millisecond)
	close(release)
	if b := <-got; !strings.HasPrefix(b, "200 ") || !strings.Contains(b, `"done"`) {
		t.Fatalf("a call longer than write_timeout: %s", b)
	}
}
