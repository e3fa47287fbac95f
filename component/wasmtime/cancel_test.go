//go:build wasmtime

package wasmtime

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A caller that cancels stops its component guest on wasmtime too, as the
// wazero component watchdog does (docs/components.md: "stops an instance
// past its deadline or whose caller cancelled → Timeout / Cancelled"): it
// ran on until the call's deadline, holding the instance.
func TestComponentCancel(t *testing.T) {
	p := loadWT(t, newLoader(t, Options{}), "conformance")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := p.Call(ctx, &abi.ToolCall{ID: "c", Tool: "sleep", Params: map[string]any{"ms": int64(1e9)}, Deadline: time.Now().Add(5 * time.Second)}, &fakeEnv{})
	if took := time.Since(start); abi.CodeOf(err) != abi.Cancelled || took > 2*time.Second {
		t.Fatalf("cancelled after 100ms: %v after %v, want Cancelled at once", err, took)
	}
	got, err := callP(p, &fakeEnv{}, "add", map[string]any{"a": int64(2), "b": int64(3)}, 5*time.Second)
	if err != nil || got.(map[string]any)["sum"] != int64(5) {
		t.Fatalf("after a cancelled call: add = %v, %v", got, err)
	}
}
