package mcp

import (
	"strings"
	"testing"
	"time"
)

// TestTokenEnvUnsetNotRetried: a URL server whose token_env names a
// variable the host was started without was retried forever (every
// reconnect_max at most, a warning each time), though the host's
// environment does not change while it runs. It is tried once, said not
// to be retried, and tried again on a refresh (kickReconnect).
func TestTokenEnvUnsetNotRetried(t *testing.T) {
	const env = "AIOS_TEST_TOKEN_NEVER_SET_4F2A"
	t.Setenv(env, "")
	b, _, logs, err := startBridge(t, map[string]ServerConfig{"remote": {URL: "http://127.0.0.1:1/mcp", TokenEnv: env,
		ConnectTimeout: 3 * time.Second, ReconnectMax: DefaultReconnectMin}})
	if err == nil || !strings.Contains(err.Error(), env) {
		t.Fatalf("Start: %v; want an error naming %s", err, env)
	}
	// Ten reconnect_max windows: a retried server fails again in each.
	time.Sleep(10 * DefaultReconnectMin)
	if n := strings.Count(logs.String(), "reconnecting"); n != 0 {
		t.Fatalf("retried %d times:\n%s", n, logs.String())
	}
	if n := strings.Count(logs.String(), "not retried"); n != 1 {
		t.Fatalf("%d warnings saying it is not retried; want 1:\n%s", n, logs.String())
	}
	b.servers[0].kickReconnect()
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(logs.String(), "not retried") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("a refresh did not try it again:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
