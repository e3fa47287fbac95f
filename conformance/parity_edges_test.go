package conformance

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestNotFoundVsDeniedEveryRuntime (no defect; guards
// docs/pipeline.md "Existence is not a secret"): the same mistakes made
// through ctx.callTool/call_tool of every runtime reach the caller the
// same way, code and message, as at top level: a tool that does not
// exist is NotFound, one that exists but is not granted CapabilityDenied,
// params of the wrong type InvalidParams naming the path (the host
// validates them before the callee runs), a nested callee's own error
// unchanged.
func TestNotFoundVsDeniedEveryRuntime(t *testing.T) {
	fixturesMu.Lock()
	list := append([]fixture(nil), fixtures...)
	fixturesMu.Unlock()
	type outcome struct {
		code abi.ErrorCode
		msg  string
	}
	cases := []struct {
		tool   string
		params map[string]any
		code   abi.ErrorCode
		msg    string // the whole message, when every runtime must give it
	}{
		{"no-such-tool", map[string]any{}, abi.NotFound, `tool "no-such-tool" not found`},
		{"peer-secret", map[string]any{}, abi.CapabilityDenied, ""},
		{"peer-echo", map[string]any{"value": 1, "x": 1}, "", ""},
		{"peer-value", map[string]any{}, abi.InvalidParams, `params of peer-value@1.0.0 violate its schema: at /: missing required property "value"`},
	}
	of := func(err error) outcome {
		var te *abi.ToolError
		if errors.As(err, &te) {
			return outcome{te.Code, te.Message}
		}
		return outcome{}
	}
	for _, fx := range list {
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
			// Top level, as an agent without ReadSpace(secret).
			if _, err := call(ctx, h, "nobody", "no-such-tool", map[string]any{}, 0); abi.CodeOf(err) != abi.NotFound {
				t.Errorf("top-level no-such-tool: %v; want NotFound", err)
			}
			if _, err := call(ctx, h, "nobody", "secret", map[string]any{}, 0); abi.CodeOf(err) != abi.CapabilityDenied {
				t.Errorf("top-level secret as nobody: %v; want CapabilityDenied", err)
			}
			if _, na := fx.NotApplicable["nested-values"]; na {
				return // the MCP bridge's servers cannot call tools of the host
			}
			for _, c := range cases {
				top := of(func() error { _, err := call(ctx, h, "nobody", c.tool, c.params, 0); return err }())
				_, err := call(ctx, h, "tester", "nested", map[string]any{"tool": c.tool, "params": c.params}, 0)
				got := of(err)
				if c.code == "" {
					if err != nil {
						t.Errorf("nested → %s: %v; want success", c.tool, err)
					}
					continue
				}
				if got.code != c.code || (c.msg != "" && got.msg != c.msg) {
					t.Errorf("nested → %s: %s %q; want %s %q", c.tool, got.code, got.msg, c.code, c.msg)
				}
				if c.code != abi.CapabilityDenied && got != top {
					t.Errorf("nested → %s: %s %q; at top level %s %q", c.tool, got.code, got.msg, top.code, top.msg)
				}
			}
		})
	}
}
