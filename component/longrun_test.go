package component

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestComponentCacheBoundedWhileRunning: the component runtime's
// compile cache (<data>/cache/component) was pruned only when the host
// started, so a host left running while components were rewritten and
// reloaded grew it without bound. Loading components now prunes it as
// the core-module loader prunes its own: a cache over the bound (a sparse
// 3 GiB file, old) loses its oldest files while the host runs.
func TestComponentCacheBoundedWhileRunning(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "old-entry")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil { // sparse: no disk used
		t.Skip("no sparse files here:", err)
	}
	f.Close()
	old := time.Now().Add(-48 * time.Hour)
	_ = os.Chtimes(big, old, old)
	bin := sample(t, "hello")
	for i := 0; i < 16; i++ {
		p, err := New(context.Background(), bin, "hello.wasm", "", Options{CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
	}
	if _, err := os.Stat(big); err == nil {
		t.Fatal("after 16 loads the component cache still holds 3 GiB, past its 2 GiB bound: not pruned while running")
	}
}
