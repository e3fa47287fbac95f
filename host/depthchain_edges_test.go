package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// pingPong is a provider whose tool calls the other's: ping → pong → ping ….
func pingPong(id, name, other string) *native.Provider {
	p := native.New(abi.ProviderInfo{ID: id, Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: name, Version: "1.0.0", Parameters: obj(map[string]any{})},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			return env.CallTool(ctx, other, "", map[string]any{})
		})
	return p
}

// TestDepthExceededNamesTheChain: two tools calling each other
// stopped at limits.max_call_depth with "call of pong is nested 4 deep;
// the limit is 3", naming neither the agent, nor ping, nor that the
// calls go round: the refusal names the chain of calls that led to it.
func TestDepthExceededNamesTheChain(t *testing.T) {
	te := newTestHost(t, func(c *config.Config) { c.Limits.MaxCallDepth = 3 })
	addSystem(t, te, pingPong("org.probe.ping", "ping", "pong"))
	addSystem(t, te, pingPong("org.probe.pong", "pong", "ping"))
	_, err := te.call("alice", "ping", map[string]any{})
	if abi.CodeOf(err) != abi.DepthExceeded {
		t.Fatalf("ping ↔ pong: %v, want DepthExceeded", err)
	}
	msg := err.Error()
	for _, want := range []string{"limits.max_call_depth", `agent "alice"`, "ping → pong → ping → pong", "calls itself"} {
		if !strings.Contains(msg, want) {
			t.Errorf("ping ↔ pong: %q does not name %q", msg, want)
		}
	}
	// A long chain is shortened, never the whole of a deep limit.
	te2 := newTestHost(t, func(c *config.Config) { c.Limits.MaxCallDepth = 200 })
	addSystem(t, te2, pingPong("org.probe.ping", "ping", "pong"))
	addSystem(t, te2, pingPong("org.probe.pong", "pong", "ping"))
	_, err = te2.call("alice", "ping", map[string]any{})
	if abi.CodeOf(err) != abi.DepthExceeded || len(err.Error()) > 600 || !strings.Contains(err.Error(), "more") {
		t.Errorf("ping ↔ pong, limit 200: %d bytes: %v", len(err.Error()), err)
	}
	// A depth given by a client (a host forwarding its call) is said so.
	_, err = te.h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "ping", Depth: 3, Params: map[string]any{}})
	if abi.CodeOf(err) != abi.DepthExceeded || !strings.Contains(err.Error(), `agent "alice" → (a call its client gave depth 3) → ping → pong`) {
		t.Errorf("ping at depth 3: %v", err)
	}
}
