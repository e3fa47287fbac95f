package conformance

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aios-host/aios-host/host"
)

// TestBigWholeFloatEcho: every runtime's echo returns a float from
// 2^53 up to 1e21 as that float, directly and through a nested call (the
// peer's value handed to the provider and back). Where the host wrote the
// value as JSON (the component runtime's JSON tools, the MCP bridge's
// arguments) encoding/json's integer literal (1152921504606847000 for
// 2^60) came back as an exact integer, another number: 2^63 as the uint64
// 9223372036854776000.
func TestBigWholeFloatEcho(t *testing.T) {
	fixturesMu.Lock()
	list := append([]fixture(nil), fixtures...)
	fixturesMu.Unlock()
	// (Not 2^53 itself: JS makes a whole number within ±2^53 an int64,
	// docs/js.md "Values across the boundary".)
	values := []any{float64(1 << 60), float64(1 << 63), -float64(1 << 63), 1e20,
		[]any{float64(1 << 62), map[string]any{"f": float64(1<<53 + 2)}}}
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
			for _, v := range values {
				if err := echoValue(ctx, h, "echo", v); err != nil {
					t.Error(err)
				}
				if _, na := fx.NotApplicable["nested-values"]; na {
					continue
				}
				got, err := call(ctx, h, "tester", "nested", map[string]any{"tool": "peer-value", "params": map[string]any{"value": v}}, 0)
				if want := map[string]any{"result": v}; err != nil || fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
					t.Errorf("nested → peer-value %s returned %s, %v", short(v), short(got), err)
				}
			}
		})
	}
}
