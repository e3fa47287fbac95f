package mcp

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Start after Close (a program shutting down before its start-up finished)
// published the servers' providers into the host, though the bridge that
// would connect them was closed, and then waited for each server to connect
// until its connect_timeout + 1 s (21 s by default), returning "context
// canceled"-style errors that named no cause. It now publishes nothing and
// fails at once saying the bridge is closed.
func TestStartAfterCloseRefused(t *testing.T) {
	rec := newRecorder()
	b, err := New(Options{Servers: map[string]ServerConfig{"fake": fakeConfig(t, "good")}, Publish: rec.publish})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	err = b.Start(ctx)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Start after Close = %v; want an error saying the bridge is closed", err)
	}
	if took > 5*time.Second {
		t.Errorf("Start after Close took %v; want it at once", took)
	}
	rec.mu.Lock()
	n := rec.n
	rec.mu.Unlock()
	if n != 0 {
		t.Errorf("Start after Close published %d providers; want none", n)
	}
}

// Refresh after Close answered nil, as if every server had been re-listed,
// though none is connected nor will be; it fails saying the bridge is
// closed.
func TestRefreshAfterCloseRefused(t *testing.T) {
	b, _, _, err := startBridge(t, map[string]ServerConfig{"fake": fakeConfig(t, "good")})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Refresh(context.Background()); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Refresh after Close = %v; want an error saying the bridge is closed", err)
	}
}
