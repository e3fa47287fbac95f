package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// After Bridge.Close the tools it published stay registered in the host
// (Close does not unregister them) and every call of them said the server
// "was stopped: the bridge closed its provider (removed or replaced); call
// the tool again" — advice for a hot reload, where a new provider takes the
// calls, but after Close no call will ever succeed. The answer now says the
// bridge was closed and that its tools stay unavailable, without "call the
// tool again"; a provider closed on its own keeps the old advice.
func TestBridgeClosedSaysBridgeClosed(t *testing.T) {
	b, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": fakeConfig(t, "good")})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = call(t, p, "mcp-fake-echo", map[string]any{"message": "x"}, 5*time.Second)
	if abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("after Bridge.Close: want Unavailable, got %v", err)
	}
	if msg := err.Error(); strings.Contains(msg, "call the tool again") || !strings.Contains(msg, "bridge was closed") {
		t.Errorf("after Bridge.Close: %q; want it to say the bridge was closed, not to call the tool again", msg)
	}
}
