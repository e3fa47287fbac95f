package discovery

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// aios/registry.refresh runs Discovery.Refresh detached from its request
// (server/coalesce.go: one run may serve several callers), so a refresh
// under way at SIGTERM went on while `run` closed discovery, the host and
// the loaders. Refresh was not tied to Discovery's life: after Close it
// rescanned and loaded every plugin again (python workers started after
// the runtime had removed its control-group folders, modules compiled)
// only to close them, and Close neither cancelled nor waited for one in
// progress.
func TestRefreshAfterCloseRefused(t *testing.T) {
	e := newEnv(t, "watch: false\n", nil)
	if err := e.d.Close(); err != nil {
		t.Fatal(err)
	}
	writeFake(t, filepath.Join(e.dir, "a.fake"), fakeSpec{ID: "org.a", Version: "1.0.0", Tools: []string{"ta"}})
	_, err := e.d.Refresh(context.Background(), "all")
	if n := e.load.loads.Load(); n != 0 {
		t.Errorf("Refresh after Close loaded %d provider(s)", n)
	}
	if err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Refresh after Close: err = %v, want one saying discovery is closed", err)
	}
}

func TestCloseWaitsForRefresh(t *testing.T) {
	e := newEnv(t, "watch: false\n", nil)
	started, release := make(chan struct{}), make(chan struct{})
	hook := func(path string) {
		close(started)
		<-release
	}
	e.load.beforeRead.Store(&hook)
	writeFake(t, filepath.Join(e.dir, "a.fake"), fakeSpec{ID: "org.a", Version: "1.0.0", Tools: []string{"ta"}})
	refreshed := make(chan error, 1)
	go func() {
		_, err := e.d.Refresh(context.Background(), "local")
		refreshed <- err
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the refresh did not start loading")
	}
	closed := make(chan struct{})
	go func() { _ = e.d.Close(); close(closed) }()
	select {
	case <-closed:
		close(release)
		t.Fatal("Close returned while a Refresh was still loading a plugin")
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return once the refresh's load ended")
	}
	// Once Close has returned, what the refresh loaded is closed and not
	// registered (Close waited for its apply).
	if open := e.load.open(); len(open) != 0 {
		t.Errorf("providers loaded by a refresh cut short by Close left open: %v", open)
	}
	if _, err := e.h.Registry().Resolve("ta", ""); err == nil {
		t.Error("a provider a refresh loaded while discovery closed is registered")
	}
	select {
	case err := <-refreshed:
		if err == nil {
			t.Error("a Refresh cut short by Close returned no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Refresh did not return")
	}
}
