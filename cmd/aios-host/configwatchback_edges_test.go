package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for a logger and a reader at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestConfigEditUndoneSaysSo: an operator who saved a bad edit of the
// running host's config (logged at error) and then put the file back as
// the host read it was told "the configuration file changed: … restart it
// to apply the change", as the file was compared with the last version
// seen, not with the one the host runs: a restart to apply nothing. It is
// now said that the file is back as the running host read it.
func TestConfigEditUndoneSaysSo(t *testing.T) {
	const started = "limits:\n  max_call_depth: 8\n"
	write, logs := watchedConfig(t, started)
	write("limits:\n  max_call_dept: 8\n")
	waitLogged(t, logs, "does not load", 1)
	write(started)
	waitLogged(t, logs, "is back as the running host read it", 1)
	// A valid edit, then undone.
	write("limits:\n  max_call_depth: 4\n")
	waitLogged(t, logs, "configuration file changed", 1)
	write(started)
	waitLogged(t, logs, "is back as the running host read it", 2)
	if n := strings.Count(logs.String(), "configuration file changed"); n != 1 {
		t.Errorf("%d change notices, want 1 (the file put back is no change to apply):\n%s", n, logs.String())
	}
}

// watchedConfig writes started as a config file, watches it with
// watchConfigFile (polling every 10 ms) until the test ends, and returns
// a function writing the file as editors save it (a new file renamed over
// the old one) and the watch's log.
func watchedConfig(t *testing.T, started string) (write func(string), logs *lockedBuffer) {
	t.Helper()
	old := configPollInterval
	configPollInterval = 10 * time.Millisecond
	t.Cleanup(func() { configPollInterval = old })
	cfgPath := filepath.Join(t.TempDir(), "host.yaml")
	write = func(body string) {
		t.Helper()
		tmp := cfgPath + ".tmp"
		if err := os.WriteFile(tmp, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, cfgPath); err != nil {
			t.Fatal(err)
		}
	}
	write(started)
	logs = &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		watchConfigFile(ctx, cfgPath, runFlags{}, []byte(started), slog.New(slog.NewTextHandler(logs, nil)))
	}()
	t.Cleanup(func() { cancel(); <-done })
	time.Sleep(5 * configPollInterval) // the watch has read the file as started
	return write, logs
}

// waitLogged waits up to 20 s for n lines of logs holding what.
func waitLogged(t *testing.T, logs *lockedBuffer, what string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(logs.String(), what) < n {
		if time.Now().After(deadline) {
			t.Fatalf("no %d× %q in the log after 20 s:\n%s", n, what, logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestConfigEditWhileLoadingSaysRestart: run began to watch its config
// file only once every plugin had loaded (14 s with the samples), and took
// the file as it was then for the one it started with: an edit saved while
// the plugins loaded was never said to need a restart, silently not
// applied. The file as run read it at start is what edits are compared
// with now.
func TestConfigEditWhileLoadingSaysRestart(t *testing.T) {
	old := configPollInterval
	configPollInterval = 10 * time.Millisecond
	t.Cleanup(func() { configPollInterval = old })
	cfgPath := filepath.Join(t.TempDir(), "host.yaml")
	const started = "limits:\n  max_call_depth: 8\n"
	// Edited (in place, so its times may not show it) before the watch.
	if err := os.WriteFile(cfgPath, []byte("limits:\n  max_call_depth: 4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		watchConfigFile(ctx, cfgPath, runFlags{}, []byte(started), slog.New(slog.NewTextHandler(&logs, nil)))
	}()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(logs.String(), "configuration file changed") {
		if time.Now().After(deadline) {
			t.Fatalf("the edit made while the host loaded was not said to need a restart:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestConfigCommentEditNoRestart: an edit of the running host's config
// that changed only a comment or the indentation was logged
// at warn as "the configuration file changed: … restart it to apply the
// change", a restart that would apply nothing (found by p162). It is said
// at info that the settings are the ones the host read; a real change
// after it is still a change to restart for.
func TestConfigCommentEditNoRestart(t *testing.T) {
	write, logs := watchedConfig(t, "limits:\n  max_call_depth: 8\n")
	write("# limits the operator tuned\nlimits:\n    max_call_depth:   8 # as before\n")
	waitLogged(t, logs, "nothing to apply", 1)
	if strings.Contains(logs.String(), "restart it to apply") {
		t.Fatalf("a comment and layout edit was called a change to restart for:\n%s", logs.String())
	}
	write("limits:\n  max_call_depth: 9\n")
	waitLogged(t, logs, "restart it to apply", 1)
}
