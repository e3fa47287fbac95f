package mcp

import (
	"strings"
	"testing"
	"time"
)

// TestCallsDoNotBypassBackoff: a server that is down for good (every
// start fails) is retried with backoff, 100 ms doubling up to
// reconnect_max, so that it is not started in a loop
// (TestCrashLoopBacksOff). But each call of one of its tools, answering
// Unavailable, also asked for a retry at once: a caller calling again and
// again (an agent retrying) had the server started as fast as it failed,
// 22 times in 4 s where the backoff allows two (found by p180). A call
// asks for a retry at once only when the last attempt began a second ago
// or more; aios/registry.refresh (Bridge.Refresh) still retries at once.
func TestCallsDoNotBypassBackoff(t *testing.T) {
	sc := p150Config(t)
	sc.Env["AIOS_MCP_P150_ONCE"] = t.TempDir() + "/once" // every start but the first fails
	sc.ReconnectMax = 10 * time.Second
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"p": sc})
	if err != nil {
		t.Fatal(err)
	}
	p := rec.provider("org.aios.mcp.p")
	if _, err := call(t, p, "mcp-p-die", nil, 10*time.Second); err == nil {
		t.Fatal("die answered")
	}
	// Let the backoff grow past a second (100, 200, 400, 800 ms…).
	time.Sleep(3 * time.Second)
	attempts := func() int { return strings.Count(logs.String(), "mcp server unavailable; reconnecting") }
	before := attempts()
	start := time.Now()
	calls := 0
	for time.Since(start) < 4*time.Second {
		_, _ = call(t, p, "mcp-p-echo", nil, 5*time.Second)
		calls++
		time.Sleep(10 * time.Millisecond)
	}
	// Within 4 s: the backoff's own attempts (at most 2 here) and at most
	// one a second asked for by calls, and slack.
	if n := attempts() - before; n > 8 {
		t.Errorf("%d calls in 4 s had the server started %d times; want the backoff kept (at most about one a second)", calls, n)
	}
}
