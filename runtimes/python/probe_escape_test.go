package python_test

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestProbeWholeNetworkNeedsCallerGrant: a provider holding Network(*)
// opens sockets itself, so the host cannot check each connection against
// the caller's grants as it does for a brokered Network(host) provider. Its
// tools connected anywhere for any caller, also one holding no Network at
// all (agent "nobody": CallTool(*) only): a confused deputy, where every
// other host service (and a bridged URL MCP server's tools) needs the
// caller's grant too. Each of its tools now requires Network(*) of the
// caller (check 1), so such a call is refused before the tool runs.
func TestProbeWholeNetworkNeedsCallerGrant(t *testing.T) {
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
