package discovery

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

var releaseOnce sync.Once

// TestProviderCloseHangDoesNotStallDiscovery: discovery closed an unloaded
// provider with its lock held, waiting for Close to return: a provider
// whose Close never returned (a worker that does not exit, a server that
// does not hang up) stopped every later load, reload and unload of the
// folder, and Discovery.Close. The wait is now bounded (closeWait): past
// it discovery says so at Warn, naming the provider and its file, and
// goes on.
func TestProviderCloseHangDoesNotStallDiscovery(t *testing.T) {
	old := closeWait
	closeWait = 200 * time.Millisecond
	t.Cleanup(func() { closeWait = old })
	var logs lockedBuffer
	env := newEnvWith(t, "", nil, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	})
	// The hung Close returns once the test is done (the first cleanup).
	t.Cleanup(func() { releaseOnce.Do(func() { close(closeRelease) }) })
	stuck := filepath.Join(env.dir, "stuck.fake")
	writeFake(t, stuck, fakeSpec{ID: "org.test.stuck", Version: "1.0.0", Tools: []string{"stuck"}, CloseHangs: true})
	testutil.Eventually(t, "stuck loaded", func() bool { return env.h.Registry().Provider("org.test.stuck") != nil })
	if err := os.Remove(stuck); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "stuck unloaded", func() bool { return env.h.Registry().Provider("org.test.stuck") == nil })

	writeFake(t, filepath.Join(env.dir, "next.fake"), fakeSpec{ID: "org.test.next", Version: "1.0.0", Tools: []string{"next"}})
	testutil.Eventually(t, "the next file loaded while stuck's Close hangs", func() bool {
		return env.h.Registry().Provider("org.test.next") != nil
	})
	if _, err := env.call("next", 1); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the hung Close logged", func() bool {
		l := logs.String()
		return strings.Contains(l, "org.test.stuck") && strings.Contains(l, "stuck.fake") && strings.Contains(l, "has not returned")
	})
	closed := make(chan error, 1)
	go func() { closed <- env.d.Close() }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Discovery.Close did not return while a provider's Close hangs")
	}
}
