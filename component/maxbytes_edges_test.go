package component

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// TestLoadKeepsToMaxBytes: the component loader read the whole file
// however large it was, the host's size check (limits.max_plugin_bytes)
// having run before the file could grow; it reads at most Source.MaxBytes
// now.
func TestLoadKeepsToMaxBytes(t *testing.T) {
	l := NewLoader(Options{CacheDir: testCacheDir()})
	path := filepath.Join(testutil.RepoRoot(t), "build", "components", "conformance.wasm")
	_, err := l.Load(context.Background(), abi.Source{Path: path, MaxBytes: 1024})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "limits.max_plugin_bytes") {
		t.Fatalf("a component over MaxBytes: %v", err)
	}
}
