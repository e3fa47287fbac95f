package conformance

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestNilCallEveryRuntime: Provider.Call with a nil *abi.ToolCall (an
// embedder calling a provider directly; the host checks first) panicked
// with a nil pointer dereference in every runtime (found by p125). Each
// answers InvalidRequest saying the call is nil.
func TestNilCallEveryRuntime(t *testing.T) {
	fixturesMu.Lock()
	list := append([]fixture(nil), fixtures...)
	fixturesMu.Unlock()
	for _, fx := range list {
		t.Run(fx.Runtime, func(t *testing.T) {
			p, err := fx.Load(t)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			_, err = p.Call(context.Background(), nil, nil)
			var te *abi.ToolError
			if !errors.As(err, &te) || te.Code != abi.InvalidRequest || !strings.Contains(te.Message, "the call is nil") {
				t.Errorf("Call(ctx, nil, nil): %v; want InvalidRequest saying the call is nil", err)
			}
		})
	}
}
