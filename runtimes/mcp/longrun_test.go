package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestRestartingServerBounded: an external stdio server that exits
// every few hundred milliseconds, for a long time. The bridge reconnects
// each time; what each connection held (goroutines, pipes, the process,
// its stderr reader) must go with it.
func TestRestartingServerBounded(t *testing.T) {
	cfg := fakeConfig(t, "good")
	cfg.Env["AIOS_MCP_FAKE_EXIT_AFTER"] = "300ms"
	_, _, logs, err := startBridge(t, map[string]ServerConfig{"flaky": cfg})
	if err != nil {
		t.Fatal(err)
	}
	restarts := func() int { return strings.Count(logs.String(), "fake: exiting as told") }
	wait := func(n int) {
		end := time.Now().Add(30 * time.Second)
		for restarts() < n && time.Now().Before(end) {
			time.Sleep(50 * time.Millisecond)
		}
		if restarts() < n {
			t.Fatalf("%d restarts in 30 s, want %d:\n%s", restarts(), n, logs.String())
		}
	}
	wait(3)
	before := testutil.TakeResources()
	wait(3 + 8)
	after := testutil.TakeResources()
	// The server keeps restarting, so each sample catches a connection
	// in some phase of its life; polled up to 15 s (3 s was passed once
	// on a machine at load 27, 8 goroutines against a bound of 7).
	end := time.Now().Add(15 * time.Second)
	for (after.Goroutines > before.Goroutines+4 || after.FDs > before.FDs+4 || after.Zombies > 0) && time.Now().Before(end) {
		time.Sleep(100 * time.Millisecond)
		after = testutil.TakeResources()
	}
	if after.Goroutines > before.Goroutines+4 || after.FDs > before.FDs+4 || after.Children > 1 || after.Zombies > 0 {
		t.Fatalf("after 8 more restarts: %v (before %v)\n%s", after, before, testutil.GoroutineDump())
	}
}
