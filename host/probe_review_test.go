package host

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// A tool in flight at Close that then calls another tool (a nested call):
// the nested dispatch counts itself and is refused (the host is closed),
// the outer call ends with that error, and Close returns without waiting
// out its 5 s or reporting calls left running. No defect.
func TestProbeCloseNestedCallInFlight(t *testing.T) {
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	p := native.New(abi.ProviderInfo{ID: "org.x.outer", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "outer", Version: "1.0.0"}, func(ctx context.Context, params any, env abi.Env) (any, error) {
		close(entered)
		<-release
		return env.CallTool(ctx, "inner", "", nil)
	})
	p.MustRegister(abi.ToolDef{Name: "inner", Version: "1.0.0"}, func(ctx context.Context, params any, env abi.Env) (any, error) {
		return "inner", nil
	})
	if err := h.AddProvider(context.Background(), p, ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	res := make(chan error, 1)
	go func() {
		_, err := h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "outer", Deadline: time.Now().Add(time.Minute)})
		res <- err
	}()
	<-entered
	closed := make(chan error, 1)
	go func() { closed <- h.Close() }()
	for !h.closed.Load() {
		time.Sleep(time.Millisecond)
	}
	close(release)
	if err := <-res; abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("the outer call: %v, want Unavailable (its nested call refused)", err)
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
}
