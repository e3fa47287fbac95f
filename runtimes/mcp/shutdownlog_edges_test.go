package mcp

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestCloseDuringStartupLogsNoFailure: closing the bridge while a stdio
// server was still starting (it had not answered initialize) logged, at
// warn level, "mcp server did not complete initialize; its last stderr
// lines" with exit "signal: killed": the bridge's own kill, reported as
// the server's failure to start, at every shutdown during a (re)start.
// Nothing is logged of a start-up the bridge itself ended.
func TestCloseDuringStartupLogsNoFailure(t *testing.T) {
	sc := fakeConfig(t, "hang")
	sc.Env["AIOS_MCP_FAKE_PIDFILE"] = t.TempDir() + "/pids"
	sc.ConnectTimeout = time.Minute
	logs := &syncBuffer{}
	b, err := New(Options{Servers: map[string]ServerConfig{"h": sc}, Publish: newRecorder().publish,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_ = b.Start(ctx) // the server hangs: Start gives up at ctx's end
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "did not complete initialize") {
		t.Errorf("closing the bridge logged a start-up failure:\n%s", logs.String())
	}
}
