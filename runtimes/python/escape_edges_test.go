package python_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestWholeNetworkNeedsCallerGrant: a provider holding Network(*)
// opens sockets itself, so the host cannot check each connection against
// the caller's grants as it does for a brokered Network(host) provider. Its
// tools connected anywhere for any caller, also one holding no Network at
// all (agent "nobody": CallTool(*) only): a confused deputy, where every
// other host service (and a bridged URL MCP server's tools) needs the
// caller's grant too. Each of its tools now requires Network(*) of the
// caller (check 1), so such a call is refused before the tool runs.
func TestWholeNetworkNeedsCallerGrant(t *testing.T) {
	h := netHost(t)
	loadTool(t, h, "netwhole.py", proberSource(`[Capability.Network("*")]`))
	port, accepted := listener(t)
	params := map[string]any{"host": "127.0.0.1", "port": int64(port)}
	v, err := h.Call(context.Background(), &abi.ToolCall{Caller: "nobody", Tool: "raw-socket", Params: params})
	if err == nil {
		t.Fatalf("caller \"nobody\" (no Network grant) had a Network(*) tool run: %v", v)
	}
	wantCode(t, err, abi.CapabilityDenied, `"nobody"`, "Network(*)")
	time.Sleep(20 * time.Millisecond) // a connection that was made is counted by now
	if n := accepted.Load(); n != 0 {
		t.Errorf("the listener saw %d connections from a call by \"nobody\"", n)
	}

	// A caller that holds Network(*) is served.
	v, err = h.Call(context.Background(), &abi.ToolCall{Caller: "wide", Tool: "raw-socket", Params: params})
	if err != nil {
		t.Fatal(err)
	}
	if r := v.(map[string]any); r["ok"] != true {
		t.Fatalf("caller \"wide\" (Network(*)): %v", r)
	}
}

// refusingEnv is an Env whose caller holds no Network: Check refuses
// every Network capability as the host's frame does.
type refusingEnv struct {
	abi.Env
	call    *abi.ToolCall
	checked []string
}

func (e *refusingEnv) Call() *abi.ToolCall  { return e.call }
func (e *refusingEnv) Logger() *slog.Logger { return slog.New(slog.DiscardHandler) }
func (e *refusingEnv) Check(c abi.Capability) error {
	e.checked = append(e.checked, c.String())
	if c.Kind == abi.CapNetwork {
		return &abi.ToolError{Code: abi.CapabilityDenied, Message: `caller "nobody" lacks ` + c.String()}
	}
	return nil
}

// TestWholeNetworkCheckedAtCall: what a tool requires can be replaced
// (an Adapter Card's capability_required overrides the artifact's), so a
// Network(*) provider checks the caller's grant at each call as well: a
// call whose Env refuses Network(*) does not run.
func TestWholeNetworkCheckedAtCall(t *testing.T) {
	rt := newRuntime(t, nil)
	all, err := abi.ParseGrants([]string{"Network(*)"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "netwhole.py", proberSource(`[Capability.Network("*")]`)), Grants: all})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	port, accepted := listener(t)
	call := &abi.ToolCall{ID: "c-raw", Tool: "raw-socket", Params: map[string]any{"host": "127.0.0.1", "port": int64(port)}}
	env := &refusingEnv{call: call}
	v, err := p.Call(context.Background(), call, env)
	if err == nil {
		t.Fatalf("a call whose caller lacks Network(*) ran: %v", v)
	}
	wantCode(t, err, abi.CapabilityDenied, `"nobody"`, "Network(*)", "open sockets themselves")
	time.Sleep(20 * time.Millisecond)
	if n := accepted.Load(); n != 0 {
		t.Errorf("the listener saw %d connections", n)
	}
}
