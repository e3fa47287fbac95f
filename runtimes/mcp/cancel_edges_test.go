package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestClosedProviderSaysStopped: a call that reaches an MCP tool
// after its provider was closed (the host removed or replaced it while
// the call was being dispatched) says the server was stopped, not that the
// bridge is reconnecting (it never will: Close stopped it).
func TestClosedProviderSaysStopped(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": fakeConfig(t, "good")})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	if _, err := call(t, p, "mcp-fake-echo", map[string]any{"message": "x"}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = call(t, p, "mcp-fake-echo", map[string]any{"message": "x"}, 5*time.Second)
	if abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("after Close: want Unavailable, got %v", err)
	}
	if msg := err.Error(); strings.Contains(msg, "reconnecting") || !strings.Contains(msg, "stopped") {
		t.Errorf("after Close: %q; want it to say the server was stopped, not that the bridge is reconnecting", msg)
	}
}

// TestCloseEndsCallsInFlight: closing an MCP provider (the host
// removing or replacing it, or closing) while a call of it waits for the
// server ends that call when the connection goes, with Unavailable: the
// answer can never come. It waited for its deadline (up to
// limits.max_deadline) on a server already stopped.
func TestCloseEndsCallsInFlight(t *testing.T) {
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"fake": fakeConfig(t, "good")})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.fake")
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := call(t, p, "mcp-fake-hang", map[string]any{}, 20*time.Second)
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	c0 := time.Now()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close took %v", time.Since(c0))
	select {
	case err := <-done:
		if abi.CodeOf(err) != abi.Unavailable {
			t.Errorf("the call in flight at Close: want Unavailable, got %v", err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("the call in flight at Close returned after %v", took)
		}
		t.Logf("in flight at Close: %v after %v", err, time.Since(start))
	case <-time.After(10 * time.Second):
		t.Fatal("the call in flight at Close still waited 10 s later (for its 20 s deadline)")
	}
}
