package host

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// A native tool that changes the result of its nested call (or the params
// it passed) after the call returns does what Go code does with its own
// maps; the audit log must not be reading the same map then.
func TestProbeNestedValuesNotSharedWithAudit(t *testing.T) {
	te := newTestHost(t, nil)
	p := native.New(abi.ProviderInfo{ID: "org.probe.mut", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "inner", Version: "1.0.0"},
		func(_ context.Context, params any, _ abi.Env) (any, error) {
			return map[string]any{"a": int64(1), "b": "x"}, nil
		})
	p.MustRegister(abi.ToolDef{Name: "outer", Version: "1.0.0"},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			params := map[string]any{"k": "v"}
			for i := range 300 {
				v, err := env.CallTool(ctx, "inner", "", params)
				if err != nil {
					return nil, err
				}
				m := v.(map[string]any)
				for j := range 20 {
					m[string(rune('c'+j))] = int64(i)
				}
				delete(m, "a")
				params["n"] = int64(i)
				params["k"+string(rune('a'+i%26))] = "w"
			}
			return "done", nil
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	if _, err := te.call("alice", "outer", map[string]any{}); err != nil {
		t.Fatal(err)
	}
}
