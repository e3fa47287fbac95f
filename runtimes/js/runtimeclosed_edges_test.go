package js

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A call of a provider whose JS runtime had been closed (Runtime.Close, or
// an embedder closing its loader table before the host) said "provider X
// is closed" though nobody closed the provider; it says the JS runtime
// that loaded it is closed. A provider closed itself keeps its message.
func TestCallAfterRuntimeCloseBlamesRuntime(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "t.js")
	if err := os.WriteFile(f, []byte(`aios.provider({id: 'org.test.rtclosed'}); aios.registerTool({name: 'echo', parameters: {}}, (p) => p);`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	call := &abi.ToolCall{Tool: "echo", Params: map[string]any{}, Deadline: time.Now().Add(10 * time.Second)}
	for _, isolation := range []string{IsolationInProcess, IsolationProcess} {
		rt := New(Options{Isolation: isolation})
		p, err := rt.Loaders()[0].Load(ctx, abi.Source{Path: f})
		if err != nil {
			t.Fatalf("%s: %v", isolation, err)
		}
		if err := rt.Close(); err != nil {
			t.Fatal(err)
		}
		_, err = p.Call(ctx, call, nil)
		if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "JS runtime that loaded it is closed") {
			t.Errorf("%s: call after Runtime.Close = %v; want Unavailable saying the JS runtime is closed", isolation, err)
		}
		_ = p.Close()
		_, err = p.Call(ctx, call, nil)
		if !strings.Contains(err.Error(), "org.test.rtclosed is closed") {
			t.Errorf("%s: call after the provider's Close = %v; want it to say the provider is closed", isolation, err)
		}
	}
}
