package python_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// notingEnv is an Env whose caller holds everything, and that keeps the
// refusals a runtime hands it (abi.RefusalNoter), as the host's frame
// keeps them for the call's audit record.
type notingEnv struct {
	abi.Env
	call  *abi.ToolCall
	mu    sync.Mutex
	noted []*abi.ToolError
}

func (e *notingEnv) Call() *abi.ToolCall        { return e.call }
func (e *notingEnv) Logger() *slog.Logger       { return slog.New(slog.DiscardHandler) }
func (e *notingEnv) Check(abi.Capability) error { return nil }
func (e *notingEnv) NoteRefused(te *abi.ToolError) {
	e.mu.Lock()
	e.noted = append(e.noted, te)
	e.mu.Unlock()
}

// TestNetworkRefusalNoted: a brokered connection the broker refuses
// itself (a host the provider does not hold) reached the tool as a
// PermissionError, and the host never heard of it: a tool that caught it
// left no trace in the audit log of the host it tried. The broker hands
// the refusal to the call's Env (abi.RefusalNoter), naming the host.
func TestNetworkRefusalNoted(t *testing.T) {
	rt := newRuntime(t, nil)
	grants, err := abi.ParseGrants([]string{"Network(127.0.0.1)"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "netnoted.py", proberSource(`[Capability.Network("127.0.0.1")]`)), Grants: grants})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	call := &abi.ToolCall{ID: "c-noted", Tool: "connect-to", Params: map[string]any{"host": "Example.Invalid", "port": int64(80)}}
	env := &notingEnv{call: call}
	v, err := p.Call(context.Background(), call, env)
	if err != nil {
		t.Fatal(err)
	}
	if r := v.(map[string]any); r["ok"] != false || !strings.Contains(r["error"].(string), "PermissionError") {
		t.Fatalf("connect to a host the provider does not hold: %v, want PermissionError", r)
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	if len(env.noted) != 1 || env.noted[0].Code != abi.CapabilityDenied || !strings.Contains(env.noted[0].Message, "Network(example.invalid)") {
		t.Fatalf("refusals noted: %v, want one CapabilityDenied naming Network(example.invalid)", env.noted)
	}
}
