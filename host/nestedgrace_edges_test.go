package host

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// lateTimeoutProvider is a provider the host watches (it does not keep
// deadlines: an MCP server's tools, a third party's runtime) that stops
// shortly after its call's deadline with a Timeout of its own, naming
// what it waited for.
type lateTimeoutProvider struct{}

func (lateTimeoutProvider) Describe() *abi.ToolRegister {
	return &abi.ToolRegister{Format: abi.FormatVersion, Provider: abi.ProviderInfo{ID: "org.test.late", Runtime: "fake"},
		Tools: []abi.ToolDef{{Name: "remote-query"}}}
}
func (lateTimeoutProvider) Call(ctx context.Context, call *abi.ToolCall, env abi.Env) (any, error) {
	time.Sleep(time.Until(call.Deadline) + 50*time.Millisecond)
	return nil, &abi.ToolError{Code: abi.Timeout, Message: "remote-query: the server did not answer the query by its deadline"}
}
func (lateTimeoutProvider) Close() error { return nil }

// TestNestedWatchedCallKeepsItsTimeout: a provider the host watches
// (CallWatched) has a second after its deadline to return, and at top
// level its own Timeout, saying what it waited for, reaches the caller.
// Called by another tool, it was abandoned at the very deadline, which its
// caller's context (the calling call's) carries too: the caller got "the
// caller's deadline passed while the provider had not returned …; the
// call was abandoned" (data.abandoned) instead. It gets the same grace.
func TestNestedWatchedCallKeepsItsTimeout(t *testing.T) {
	te := newTestHost(t, nil)
	if err := te.h.AddProvider(context.Background(), lateTimeoutProvider{}, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	p := native.New(abi.ProviderInfo{ID: "org.test.asks", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "ask-remote", Version: "1.0.0"}, func(ctx context.Context, _ any, env abi.Env) (any, error) {
		return env.CallTool(ctx, "remote-query", "", nil)
	})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"remote-query", "ask-remote"} {
		_, err := te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: tool, Deadline: time.Now().Add(200 * time.Millisecond)})
		var terr *abi.ToolError
		if !errors.As(err, &terr) || terr.Code != abi.Timeout || terr.Message != "remote-query: the server did not answer the query by its deadline" || terr.Data != nil {
			t.Errorf("call of %s: %v (data %v), want remote-query's own Timeout", tool, err, terr.Data)
		}
	}
}
