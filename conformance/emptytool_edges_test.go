package conformance

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestEmptyToolNameEveryRuntime: a nested call of the tool "" (a
// name read from params that were empty) was answered four ways: NotFound
// 'tool "" not found' to a native, in-process JS or component provider,
// InvalidParams "call_tool: no tool name" to a Python one and to the same
// JS file in a worker process, InvalidRequest "request needs a non-empty
// string" to a WASM guest. Every runtime gets InvalidParams "call_tool:
// no tool name" now (the host's Env refuses it, as internal/hostop did).
func TestEmptyToolNameEveryRuntime(t *testing.T) {
	fixturesMu.Lock()
	list := append([]fixture(nil), fixtures...)
	fixturesMu.Unlock()
	for _, fx := range list {
		if _, na := fx.NotApplicable["nested-values"]; na {
			continue // an MCP server cannot call tools of the host
		}
		t.Run(fx.Runtime, func(t *testing.T) {
			h := newHarnessHost(t)
			p, err := fx.Load(t)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "probe " + fx.Runtime, Trust: fx.Trust}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if fx.Names != nil {
				ctx = context.WithValue(ctx, namesKey{}, fx.Names)
			}
			_, err = call(ctx, h, "tester", "nested", map[string]any{"tool": "", "params": map[string]any{}}, 0)
			var te *abi.ToolError
			if !errors.As(err, &te) || te.Code != abi.InvalidParams || te.Message != "call_tool: no tool name" {
				t.Errorf("nested → \"\": %v; want InvalidParams \"call_tool: no tool name\"", err)
			}
		})
	}
}
