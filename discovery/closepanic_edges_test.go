package discovery

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestProviderClosePanicContained: a provider whose Close panics (a bug
// of a loader an embedder added with host.AddLoader) is closed by
// discovery's last holder — the unload of its deleted file, or the last
// call in flight on a version a reload replaced. host.RemoveProvider and
// Host.Close turn such a panic into an error; discovery's own Close of it
// did not: deleting the file crashed the process from the watcher's
// goroutine, and the call that drained the replaced version answered
// ProviderCrashed though its tool had served it. The panic is now logged
// like a failed Close, naming the provider and its file, and the call
// keeps its answer.
func TestProviderClosePanicContained(t *testing.T) {
	var logs lockedBuffer
	env := newEnvWith(t, "", nil, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	})

	// Unloaded: its file deleted while idle.
	gone := filepath.Join(env.dir, "gone.fake")
	writeFake(t, gone, fakeSpec{ID: "org.test.gone", Version: "1.0.0", Tools: []string{"gone"}, ClosePanic: "gone's close bug"})
	testutil.Eventually(t, "gone loaded", func() bool { return env.h.Registry().Provider("org.test.gone") != nil })
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the close panic logged", func() bool {
		l := logs.String()
		return strings.Contains(l, "gone's close bug") && strings.Contains(l, "org.test.gone") && strings.Contains(l, "gone.fake")
	})

	// Replaced under a call: the call's return drains the old version.
	path := filepath.Join(env.dir, "slowpanic.fake")
	writeFake(t, path, fakeSpec{ID: "org.test.slowpanic", Version: "1.0.0", Tools: []string{"slow"}, SleepMS: 1500, ClosePanic: "v1's close bug"})
	testutil.Eventually(t, "v1 loaded", func() bool { return env.h.Registry().Provider("org.test.slowpanic") != nil })
	type answer struct {
		v   any
		err error
	}
	started := make(chan struct{})
	done := make(chan answer, 1)
	go func() {
		close(started)
		v, err := env.h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "slow", Params: map[string]any{"value": 1}})
		done <- answer{v, err}
	}()
	<-started
	testutil.Eventually(t, "the call reached v1", func() bool {
		for _, p := range env.load.madeOf("org.test.slowpanic") {
			if p.calls.Load() > 0 {
				return true
			}
		}
		return false
	})
	writeFake(t, path, fakeSpec{ID: "org.test.slowpanic", Version: "1.0.1", Tools: []string{"slow"}})
	a := <-done
	if a.err != nil {
		t.Fatalf("the call in flight on v1 while it was replaced failed: %v", a.err)
	}
	if m, _ := a.v.(map[string]any); m["version"] != "1.0.0" {
		t.Fatalf("the call in flight on v1 answered %v", a.v)
	}
	testutil.Eventually(t, "v1's close panic logged", func() bool {
		return strings.Contains(logs.String(), "v1's close bug")
	})
	if _, err := env.call("slow", 2); err != nil {
		t.Fatalf("the host does not serve after the close panics: %v", err)
	}
}
