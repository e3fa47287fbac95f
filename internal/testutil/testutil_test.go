package testutil

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

func TestRepoRoot(t *testing.T) {
	root := RepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("RepoRoot = %s, which holds no go.mod: %v", root, err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "testutil", "testutil.go")); err != nil {
		t.Fatalf("RepoRoot = %s, not this module's root: %v", root, err)
	}
}

func TestFindRepoRootWithoutGoMod(t *testing.T) {
	t.Chdir(t.TempDir())
	if dir, err := FindRepoRoot(); err != ErrNoRepoRoot {
		t.Fatalf("FindRepoRoot in a temp dir = %q, %v; want ErrNoRepoRoot", dir, err)
	}
}

func TestSyncBufferConcurrent(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				_, _ = b.Write([]byte("x"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if n := len(b.String()); n != 800 {
		t.Fatalf("wrote 800 bytes, buffer holds %d", n)
	}
}

func TestEventually(t *testing.T) {
	var n atomic.Int32
	Eventually(t, "the third poll", func() bool { return n.Add(1) >= 3 })
	if n.Load() != 3 {
		t.Fatalf("cond polled %d times after it first held; want 3", n.Load())
	}
}
