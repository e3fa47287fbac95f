//go:build unix

package wasm

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestSealRaceFreshEntry: two loaders share a compile cache. While
// loader A had compiled its module (wazero had written the entry) and not
// yet sealed it, loader B's load of another module ran the cache check,
// which removed A's fresh entry as "damaged (or not sealed)" with a Warn,
// and A's module was compiled again by the next host. B's check now waits
// for the compilations in progress on the directory to seal their entries;
// A's entry is kept and sealed, and nothing is said at Warn.
func TestSealRaceFreshEntry(t *testing.T) {
	pathA := buildWAT(t, basicWAT("org.test.sealracea", 2))
	pathB := buildWAT(t, basicWAT("org.test.sealraceb", 3))
	dir := t.TempDir()
	var logB testutil.SyncBuffer
	la := newTestLoader(t, Config{CacheDir: dir}, nil)
	lb := newTestLoader(t, Config{CacheDir: dir}, slog.New(slog.NewTextHandler(&logB, nil)))
	var once sync.Once
	bDone := make(chan struct{})
	afterCompile = func() {
		once.Do(func() {
			// A's entry is written, not sealed: B loads now.
			go func() {
				defer close(bDone)
				load(t, lb, pathB)
			}()
			// Before the fix B's load ends here at once; after it, B
			// waits for A (this bound only lets A go on: no assert).
			select {
			case <-bDone:
			case <-time.After(500 * time.Millisecond):
			}
		})
	}
	t.Cleanup(func() { afterCompile = nil })
	load(t, la, pathA)
	<-bDone
	if strings.Contains(logB.String(), "level=WARN") {
		t.Fatalf("loader B removed loader A's fresh cache entry:\n%s", logB.String())
	}
	// A third loader takes both entries without a warning.
	var log3 testutil.SyncBuffer
	l3 := newTestLoader(t, Config{CacheDir: dir}, slog.New(slog.NewTextHandler(&log3, nil)))
	load(t, l3, pathA)
	load(t, l3, pathB)
	if strings.Contains(log3.String(), "level=WARN") {
		t.Fatalf("the cache is not whole:\n%s", log3.String())
	}
}
