package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestConfigEditSeenAfterUnreadable: an edit of the running host's
// config file that the watch could not read when it first saw it (the
// file saved by another user, mode 0600, then chmod 644) was never said
// to take a restart: the watch noted the file's size and time before
// reading it, so every later look found them unchanged and read nothing,
// though its comment said it would look again at the next tick (a chmod
// changes neither). Now a file that could not be read is read again at
// the next tick, until it can be.
func TestConfigEditSeenAfterUnreadable(t *testing.T) {
	old, oldRead := configPollInterval, readConfigNow
	configPollInterval = 10 * time.Millisecond
	t.Cleanup(func() { configPollInterval, readConfigNow = old, oldRead })
	var denied atomic.Bool
	var deniedReads atomic.Int64
	readConfigNow = func(path string) ([]byte, error) {
		if denied.Load() {
			deniedReads.Add(1)
			return nil, &os.PathError{Op: "open", Path: path, Err: syscall.EACCES}
		}
		return readConfigFile(path)
	}
	path := filepath.Join(t.TempDir(), "host.yaml")
	started := []byte("limits:\n  max_call_depth: 8\n")
	if err := os.WriteFile(path, started, 0o600); err != nil {
		t.Fatal(err)
	}
	logs := &testutil.SyncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); watchConfigFile(ctx, path, runFlags{}, started, log) }()
	t.Cleanup(func() { cancel(); <-done })

	denied.Store(true)
	if err := os.WriteFile(path, []byte("limits:\n  max_call_depth: 4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the edited file looked at while unreadable", func() bool { return deniedReads.Load() >= 1 })
	denied.Store(false) // chmod 644: its size and time unchanged
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(logs.String(), "configuration file changed") {
		if time.Now().After(deadline) {
			t.Fatalf("the edit was never said to take a restart once readable:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
