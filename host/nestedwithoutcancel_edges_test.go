package host

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestNestedCallWithoutCancelEndsWithCall: a nested call made under
// context.WithoutCancel of the call's context (a native tool detaching
// work it starts) kept the call's values, so Env.CallTool took it for the
// call's own context and did not end it with the call: it ran on after
// its call had returned, or had been cancelled by its caller, to the
// parent's deadline, as one made under context.Background() did before
// TestNestedCallEndsWithCall. It ends with the call: Cancelled.
func TestNestedCallWithoutCancelEndsWithCall(t *testing.T) {
	te := newTestHost(t, nil)
	started := make(chan struct{}, 2)
	stopped := make(chan error, 2)
	result := make(chan error, 2)
	p := native.New(abi.ProviderInfo{ID: "org.test.withoutcancel", Version: "1.0.0", Capabilities: []string{"CallTool(*)"}})
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
	p.MustRegister(abi.ToolDef{Name: "detached", Version: "1.0.0"},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			go func() {
				_, err := env.CallTool(context.WithoutCancel(ctx), "slow-inner", "", nil)
				result <- err
			}()
			select {
			case <-started:
			case <-time.After(30 * time.Second):
				return nil, errors.New("the nested call never started")
			}
			return "returned", nil
		})
	p.MustRegister(abi.ToolDef{Name: "waiting", Version: "1.0.0"},
		func(ctx context.Context, params any, env abi.Env) (any, error) {
			_, err := env.CallTool(context.WithoutCancel(ctx), "slow-inner", "", nil)
			return nil, err
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Minute) // far past the test's waits
	wait := func(what string) {
		t.Helper()
		select {
		case err := <-stopped:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: the nested call ran on after its call had ended: %v", what, err)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: the nested call ran on after its call had ended", what)
		}
		select {
		case err := <-result:
			if abi.CodeOf(err) != abi.Cancelled {
				t.Errorf("%s: %v; want Cancelled", what, err)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: no answer", what)
		}
	}
	if v, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "detached", Deadline: deadline}); err != nil || v != "returned" {
		t.Fatalf("detached: %v, %v", v, err)
	}
	wait("detached, returned")

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, err := te.h.Call(ctx, &abi.ToolCall{Caller: "alice", Tool: "waiting", Deadline: deadline})
		result <- err
	}()
	<-started
	cancel()
	wait("waiting, cancelled")
}
