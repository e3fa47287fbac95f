package mcp

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRefreshBoundedPerServer: Refresh (aios/registry.refresh) re-listed
// each connected server with the caller's context alone, one after the
// other, so a server that stopped answering tools/list held the refresh
// for the caller's whole deadline, and the servers after it were not
// re-listed. Each re-listing is bounded by its server's connect_timeout,
// as the run loop's are, and the error names the server.
func TestRefreshBoundedPerServer(t *testing.T) {
	hung := p122Config(t, "hanglist")
	hung.ConnectTimeout = 5 * time.Second // (its start outlasted 2 s under a CI run's load)
	b, _, _, err := startBridge(t, map[string]ServerConfig{"a": hung, "b": fakeConfig(t, "good")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	err = b.Refresh(ctx)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "mcp server a") {
		t.Errorf("Refresh: %v; want an error naming server a", err)
	}
	if took > 20*time.Second {
		t.Errorf("Refresh took %v: held by server a's unanswered tools/list past its connect_timeout (5s)", took)
	}
}
