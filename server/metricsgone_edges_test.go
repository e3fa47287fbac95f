package server

import (
	"context"
	"fmt"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestMetricsOfGoneToolsReleased: aios_tool_calls_total and
// aios_tool_call_duration_seconds keep series by tool name, and the
// series of a tool no provider registered any more stayed until the host
// restarted (a counter per outcome code and an 18-bucket histogram per
// name ever called): a host whose plugins came and went under new tool
// names grew its memory and every /metrics answer with each (found by
// p152; docs/discovery.md said so). When a tool is first called, the
// series of the tools no longer registered are deleted; a tool still
// registered keeps its counts.
func TestMetricsOfGoneToolsReleased(t *testing.T) {
	ts := newTestServer(t, "", false)
	ctx := context.Background()
	meta := host.ProviderMeta{Source: "test", Trust: abi.System}
	call := func(tool string) {
		t.Helper()
		if _, err := ts.h.Call(ctx, &abi.ToolCall{Caller: "cli", Tool: tool, Params: map[string]any{"a": 1, "b": 2}}); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
	}
	call("add")
	const rounds = 40
	for i := range rounds {
		q := native.New(abi.ProviderInfo{ID: fmt.Sprintf("org.probe.gone%d", i)})
		name := fmt.Sprintf("gone-%d", i)
		q.MustRegister(abi.ToolDef{Name: name, Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
		if err := ts.h.AddProvider(ctx, q, meta); err != nil {
			t.Fatal(err)
		}
		call(name)
		if err := ts.h.RemoveProvider(q.Info().ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ts.h.Call(ctx, &abi.ToolCall{Caller: "cli", Tool: "echo", Params: map[string]any{"value": 1}}); err != nil {
		t.Fatal(err)
	}
	fams, err := ts.s.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]map[string]bool{} // family → tool label values
	added := 0.0
	for _, f := range fams {
		switch f.GetName() {
		case "aios_tool_calls_total", "aios_tool_call_duration_seconds":
		default:
			continue
		}
		tools[f.GetName()] = map[string]bool{}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "tool" {
					tools[f.GetName()][l.GetValue()] = true
					if l.GetValue() == "add" && m.GetCounter() != nil {
						added += m.GetCounter().GetValue()
					}
				}
			}
		}
	}
	for fam, names := range tools {
		// add, echo, and the last gone tool, whose series a call
		// racing its removal may keep until the next new name.
		if len(names) > 3 {
			t.Errorf("%s: after %d tools called and removed, series of %d tool names are kept: %v", fam, rounds, len(names), names)
		}
	}
	if !tools["aios_tool_calls_total"]["add"] || added != 1 {
		t.Errorf("the series of add, still registered, lost its count: %v (want 1)", added)
	}
}
