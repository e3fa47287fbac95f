package wasm

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// withCustomSection appends a custom section naming n to a module: the
// same code under another digest, as a plugin rewritten by a developer is.
func withCustomSection(bin []byte, n int) []byte {
	name := "probe"
	payload := []byte{byte(len(name))}
	payload = append(payload, name...)
	payload = append(payload, byte(n), byte(n>>8))
	out := append([]byte{}, bin...)
	out = append(out, 0, byte(len(payload)))
	return append(out, payload...)
}

func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				total += fi.Size()
			}
		}
		return nil
	})
	return total
}

// TestCompileCacheBoundedWhileRunning: a host that runs for weeks
// while a plugin is rewritten and reloaded compiles every version into
// its cache. The cache was pruned only when a loader started, so it grew
// without bound until the next restart; a running loader now prunes it
// again every pruneEvery compilations.
func TestCompileCacheBoundedWhileRunning(t *testing.T) {
	src, err := os.ReadFile(builtGuest(t, "c-echo"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	l := newTestLoader(t, Config{CacheDir: dir}, nil)
	// One version's entries (instrumented module and compiled code).
	first := filepath.Join(t.TempDir(), "v0.wasm")
	if err := os.WriteFile(first, withCustomSection(src, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := l.Load(context.Background(), abi.Source{Path: first})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	per := dirBytes(t, dir)
	if per == 0 {
		t.Fatal("the loader wrote nothing to its cache")
	}
	bound := 2 * per
	oldBound, oldEvery := cacheBound, pruneEvery
	cacheBound, pruneEvery = bound, 2
	t.Cleanup(func() { cacheBound, pruneEvery = oldBound, oldEvery })
	const versions = 60
	for i := 1; i <= versions; i++ {
		path := filepath.Join(t.TempDir(), "plugin.wasm")
		if err := os.WriteFile(path, withCustomSection(src, i), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := l.Load(context.Background(), abi.Source{Path: path})
		if err != nil {
			t.Fatalf("version %d: %v", i, err)
		}
		p.Close() // the reload replaces it
	}
	// Between two prunings at most pruneEvery versions are added.
	if got, limit := dirBytes(t, dir), bound+int64(pruneEvery+1)*per; got > limit {
		t.Fatalf("after %d versions the cache holds %d bytes (one version: %d), over %d: not pruned while running", versions, got, per, limit)
	}
}
