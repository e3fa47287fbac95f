package server

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// noRuntime is a provider whose registration names no runtime (a Go
// embedder's own abi.Provider need not).
type noRuntime struct{ *native.Provider }

func (p noRuntime) Describe() *abi.ToolRegister {
	r := *p.Provider.Describe()
	r.Provider.Runtime = ""
	return &r
}

// TestMetricsProviderWithoutRuntime: a call served by a provider that
// names no runtime was counted as tool "unknown", runtime "none" — the
// labels of a call of a tool that does not exist — as the metrics took
// an empty runtime for a failed lookup: its calls, served or failed,
// were lost among the unknown names'. The tool keeps its name; the
// runtime is "none".
func TestMetricsProviderWithoutRuntime(t *testing.T) {
	ts := newTestServer(t, "", false)
	ctx := context.Background()
	q := native.New(abi.ProviderInfo{ID: "org.probe.bare"})
	q.MustRegister(abi.ToolDef{Name: "bare", Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
	if err := ts.h.AddProvider(ctx, noRuntime{q}, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.h.Call(ctx, &abi.ToolCall{Caller: "cli", Tool: "bare", Params: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	fams := scrape(t, ts)
	if got := value(fams, "aios_tool_calls_total", map[string]string{"tool": "bare", "runtime": "none", "code": "OK"}); got != 1 {
		t.Errorf("aios_tool_calls_total{tool=bare,runtime=none,code=OK} = %v, want 1; unknown,none,OK = %v", got,
			value(fams, "aios_tool_calls_total", map[string]string{"tool": "unknown", "runtime": "none", "code": "OK"}))
	}
}
