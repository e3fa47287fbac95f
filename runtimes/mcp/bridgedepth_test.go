package mcp

import (
	"slices"
	"strings"
	"testing"
)

// A stdio server's environment counts the bridges above it, whatever the
// config's env says, and a host that deep starts none: an `aios-host mcp`
// command bridged by the same config would start copies of itself without
// end.
func TestBridgeDepth(t *testing.T) {
	t.Setenv(bridgeDepthEnv, "2")
	env := ServerConfig{Env: map[string]string{bridgeDepthEnv: "0", "X": "1"}}.environ()
	if !slices.Contains(env, bridgeDepthEnv+"=3") || slices.Contains(env, bridgeDepthEnv+"=0") || !slices.Contains(env, "X=1") {
		t.Fatalf("environment %q: want %s=3 (not the config's 0) and X=1", env, bridgeDepthEnv)
	}
	if env := (ServerConfig{InheritEnv: true}).environ(); slices.Contains(env, bridgeDepthEnv+"=2") || !slices.Contains(env, bridgeDepthEnv+"=3") {
		t.Fatalf("inherited environment: want only %s=3", bridgeDepthEnv)
	}
	s := &server{name: "self", cfg: ServerConfig{Command: "/bin/true"}}
	t.Setenv(bridgeDepthEnv, "4")
	if _, _, err := s.transport(); err == nil || !strings.Contains(err.Error(), "not started") || !strings.Contains(err.Error(), bridgeDepthEnv) {
		t.Fatalf("transport at depth 4: %v, want a refusal naming %s", err, bridgeDepthEnv)
	}
	t.Setenv(bridgeDepthEnv, "x")
	if d := bridgeDepth(); d != 0 {
		t.Fatalf("depth of a value that is not a number: %d", d)
	}
}
