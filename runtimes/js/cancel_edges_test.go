package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestCancelSaysWhat: a call its caller cancels ends Cancelled with a
// message that says the caller cancelled it and its handler was stopped,
// in process and in a worker process, busy or awaiting. It said only
// "context canceled".
func TestCancelSaysWhat(t *testing.T) {
	src := `aios.registerTool({ name: 'spin', parameters: { type: 'object' } }, () => { for (;;) {} });
aios.registerTool({ name: 'wait', parameters: { type: 'object' } }, () => new Promise(() => {}));
`
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		rt := newRuntime(t, Options{Isolation: iso})
		path := writeSource(t, "cancel.js", src)
		p, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		for _, tool := range []string{"spin", "wait"} {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			c := &abi.ToolCall{ID: "c1", Tool: tool, Params: map[string]any{}, Deadline: time.Now().Add(20 * time.Second)}
			fe := newFakeEnv()
			fe.call = c
			_, err := p.Call(ctx, c, fe)
			cancel()
			if abi.CodeOf(err) != abi.Cancelled {
				t.Errorf("%s %s: want Cancelled, got %v", iso, tool, err)
				continue
			}
			if msg := err.Error(); !strings.Contains(msg, "cancelled by its caller") || !strings.Contains(msg, "handler") {
				t.Errorf("%s %s: %q does not say that the caller cancelled the call and its handler was stopped", iso, tool, msg)
			}
		}
	}
}

// TestCloseUnderCallNotACrash: a worker process still running a call
// when its provider closes is stopped after the grace (5 s); the call
// ends Unavailable saying the provider was closed, not ProviderCrashed:
// nothing crashed.
func TestCloseUnderCallNotACrash(t *testing.T) {
	rt := newRuntime(t, Options{Isolation: IsolationProcess})
	path := writeSource(t, "spin.js", `aios.registerTool({ name: 'spin', parameters: { type: 'object' } }, () => { for (;;) {} });`)
	p, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
	if err != nil {
		t.Fatal(err)
	}
	c := &abi.ToolCall{ID: "c1", Tool: "spin", Params: map[string]any{}, Deadline: time.Now().Add(60 * time.Second)}
	fe := newFakeEnv()
	fe.call = c
	time.AfterFunc(300*time.Millisecond, func() { _ = p.Close() })
	start := time.Now()
	_, err = p.Call(context.Background(), c, fe)
	if abi.CodeOf(err) != abi.Unavailable || !strings.Contains(err.Error(), "provider was closed during the call") {
		t.Fatalf("a call in flight at Close: %v after %v; want Unavailable saying the provider was closed", err, time.Since(start))
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the call ended %v after it started: the 60 s deadline, not the 5 s grace", d)
	}
}
