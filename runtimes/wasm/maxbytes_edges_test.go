package wasm

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestLoadKeepsToMaxBytes: the loader read the whole module however large
// it was, the host's size check (limits.max_plugin_bytes) having run before
// the file could grow; it reads at most Source.MaxBytes now.
func TestLoadKeepsToMaxBytes(t *testing.T) {
	l := newTestLoader(t, Config{}, nil)
	path := builtGuest(t, "conformance")
	_, err := l.Load(context.Background(), abi.Source{Path: path, MaxBytes: 1024})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "limits.max_plugin_bytes") {
		t.Fatalf("a module over MaxBytes: %v", err)
	}
}
