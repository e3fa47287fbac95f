package python

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// extractSDK builds the SDK folder in a temporary ".sdk-*" folder beside it
// and renames it into place; a host killed meanwhile left that folder in
// the user cache for good (each start after an upgrade could add one).
// One left an hour ago or more is removed at the next start; a newer one
// may be another host's extraction in progress and is kept.
func TestSDKStaleTempRemoved(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	dir, err := extractSDK()
	if err != nil {
		t.Fatal(err)
	}
	parent := filepath.Dir(dir)
	stale, fresh := filepath.Join(parent, ".sdk-111"), filepath.Join(parent, ".sdk-222")
	for _, d := range []string{stale, fresh} {
		if err := os.MkdirAll(filepath.Join(d, "aios_sdk"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "aios_sdk", "_worker.py"), []byte("# cut"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := extractSDK(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the temporary folder of an extraction cut two hours ago is still there: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh temporary folder (another extraction in progress) was removed: %v", err)
	}
}
