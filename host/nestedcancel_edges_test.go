package host

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestNestedCallEndsWithCall: a nested call made under a context other
// than the call's (a native tool's goroutine using context.Background())
// ran on after its call had returned, or had been cancelled by its
// caller, to the parent's deadline: orphaned work, charged to a call
// already over. As a completion does (TestInferenceEndsWithCall), it ends
// with the call that made it: Cancelled.
func TestNestedCallEndsWithCall(t *testing.T) {
	te := newTestHost(t, nil)
	started := make(chan struct{}, 2)
	stopped := make(chan error, 2)
	result := make(chan error, 2)
	p := native.New(abi.ProviderInfo{ID: "org.test.detached", Version: "1.0.0", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "slow-inner", Version: "1.0.0"},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			started <- struct{}{}
			select {
			case <-ctx.Done():
				stopped <- ctx.Err()
				return nil, ctx.Err()
			case <-time.After(time.Minute):
				stopped <- errors.New("ran to its end")
				return "finished", nil
			}
		})
	// detached returns as soon as its nested call has started.
	p.MustRegister(abi.ToolDef{Name: "detached", Version: "1.0.0"},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			go func() {
				_, err := env.CallTool(context.Background(), "slow-inner", "", nil)
				result <- err
			}()
			select {
			case <-started:
			case <-time.After(30 * time.Second):
				return nil, errors.New("the nested call never started")
			}
			return "returned", nil
		})
	// waiting waits on its nested call, made under another context, until
	// its own caller cancels it.
	p.MustRegister(abi.ToolDef{Name: "waiting", Version: "1.0.0"},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			_, err := env.CallTool(context.Background(), "slow-inner", "", nil)
			return nil, err
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	// The test host's default deadline is 5 s: a nested call not ended
	// with its call stopped at it, DeadlineExceeded.
	wait := func(what string) {
		t.Helper()
		select {
		case err := <-stopped:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: the nested call ran on after its call had ended: %v", what, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: the nested call ran on after its call had ended", what)
		}
		select {
		case err := <-result:
			if abi.CodeOf(err) != abi.Cancelled {
				t.Errorf("%s: %v; want Cancelled", what, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: no answer", what)
		}
	}

	if v, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "detached", Deadline: time.Now().Add(10 * time.Minute)}); err != nil || v != "returned" {
		t.Fatalf("call: %v %v", v, err)
	}
	wait("a call that returned")

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, err := te.h.Call(ctx, &abi.ToolCall{Caller: "alice", Tool: "waiting", Deadline: time.Now().Add(10 * time.Minute)})
		result <- err
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the nested call of waiting never started")
	}
	cancel()
	wait("a call its caller cancelled")
}
