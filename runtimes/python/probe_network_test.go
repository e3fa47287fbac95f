package python_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/space"
)

// netHost is a host whose agent "netter" holds Network(127.0.0.1) and
// "nobody" only CallTool(*), with the python loader.
func netHost(t *testing.T) *host.Host {
	t.Helper()
	rt := newRuntime(t, nil)
	cfg := testConfig(t)
	cfg.Agents["netter"] = config.Agent{Grants: []string{"CallTool(*)", "Network(127.0.0.1)"}}
	st, err := space.Open(filepath.Join(cfg.Data, "spaces"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: cfg, Spaces: st, Loaders: []abi.Loader{rt}, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h
}

// TestProbeNetworkCallerIntersected: a brokered connection needs
// Network(host) of the caller too, as every other host service does.
func TestProbeNetworkCallerIntersected(t *testing.T) {
	h := netHost(t)
	loadTool(t, h, "netprobe.py", proberSource(`[Capability.Network("127.0.0.1")]`))
	port, accepted := listener(t)
	params := map[string]any{"port": int64(port)}
	v, err := h.Call(context.Background(), &abi.ToolCall{Caller: "netter", Tool: "connect", Params: params})
	if err != nil || v.(map[string]any)["ok"] != true {
		t.Fatalf("netter: %v %v", v, err)
	}
	v, err = h.Call(context.Background(), &abi.ToolCall{Caller: "nobody", Tool: "connect", Params: params})
	if err != nil {
		t.Fatal(err)
	}
	r := v.(map[string]any)
	t.Logf("nobody: %v", r)
	if r["ok"] != false || !strings.Contains(r["error"].(string), "PermissionError") || !strings.Contains(r["error"].(string), `"nobody"`) {
		t.Errorf("a caller without Network(127.0.0.1) had the tool connect: %v", r)
	}
	time.Sleep(50 * time.Millisecond)
	if n := accepted.Load(); n != 1 {
		t.Errorf("the listener saw %d connections, want 1", n)
	}
}
