package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestProcessCrashDuringCloseIsACrash: a worker that dies of its own
// accord (out of memory) while its provider is closing, with a call in
// flight, fails that call with ProviderCrashed saying why, as it would
// without the close. It was Unavailable "its provider was closed during
// the call … stopped (exit status 2)": a retryable code for a call that
// crashed its worker, and the out-of-memory explanation was lost.
func TestProcessCrashDuringCloseIsACrash(t *testing.T) {
	p := loadIsolated(t, Options{MemoryBudget: 64 << 30, ProcessMemory: 128 << 20}, `
aios.registerTool({name: 'amplify', parameters: {}}, async (p, ctx) => {
  await ctx.callTool('gate', {});
  return new Array(4096).fill('x'.repeat(1 << 24)).join('').length;
});`)
	env := newFakeEnv()
	entered, release := make(chan struct{}), make(chan struct{})
	env.tools["gate"] = func(context.Context, any) (any, error) {
		close(entered)
		<-release
		return nil, nil
	}
	errc := make(chan error, 1)
	go func() {
		_, err := p.Call(context.Background(), &abi.ToolCall{ID: "a", Tool: "amplify", Params: map[string]any{}, Deadline: time.Now().Add(2 * time.Minute)}, env)
		errc <- err
	}()
	<-entered
	_ = p.Close() // the call in flight has 5 s to finish
	close(release)
	te := wantCode(t, <-errc, abi.ProviderCrashed)
	if !strings.Contains(te.Message, "128 MiB") {
		t.Fatalf("the crash does not name the worker's memory limit: %q", te.Message)
	}
}
