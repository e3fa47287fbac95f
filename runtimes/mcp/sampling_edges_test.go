package mcp

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// hangingEnv's Complete waits for its context, and says when it ended.
type hangingEnv struct {
	abi.Env
	started chan struct{}
	ended   chan time.Time
}

func (e *hangingEnv) Complete(ctx context.Context, _ abi.CompleteRequest) (abi.CompleteResponse, error) {
	close(e.started)
	select {
	case <-ctx.Done():
		e.ended <- time.Now()
	case <-time.After(15 * time.Second):
		e.ended <- time.Time{}
	}
	return abi.CompleteResponse{}, ctx.Err()
}

// TestSamplingEndsWithCall: a completion asked for by a server's
// sampling request is the bridge call's: when that call ends (its
// deadline, its caller's cancel), the completion is cancelled too, and
// does not run on to inference.timeout on the caller's account.
func TestSamplingEndsWithCall(t *testing.T) {
	cfg := fakeConfig(t, "sampling")
	cfg.Sampling = true
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": cfg})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	env := &hangingEnv{started: make(chan struct{}), ended: make(chan time.Time, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-env.started
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	c := &abi.ToolCall{ID: "t", Tool: "mcp-fake-sample", Params: map[string]any{}, Deadline: time.Now().Add(20 * time.Second)}
	_, err = p.Call(ctx, c, env)
	returned := time.Now()
	t.Logf("call: %v", err)
	select {
	case at := <-env.ended:
		if at.IsZero() || at.Sub(returned) > time.Second {
			t.Fatalf("the completion ran on %v after its call ended", at.Sub(returned))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the completion did not end")
	}
}
