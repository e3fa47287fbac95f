package component

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// Dispatch's doc lets core be nil (core modules refused); a nil comp, or
// both nil, panicked instead: Runtime() on (nil, nil), Load of a
// component on (core, nil). They now refuse with an error naming the
// file.
func TestDispatchNilLoaders(t *testing.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panicked: %v", r)
		}
	}()
	comp := filepath.Join(testutil.RepoRoot(t), "samples", "plugins", "image-tools.component.wasm")
	d := Dispatch(nil, nil)
	if d.Runtime() == "" {
		t.Fatal("Runtime of Dispatch(nil, nil) is empty")
	}
	_, err := d.Load(context.Background(), abi.Source{Path: comp})
	if err == nil || !strings.Contains(err.Error(), comp) || !strings.Contains(err.Error(), "component") {
		t.Fatalf("Load of a component with no component loader: %v, want an error naming the file", err)
	}
}
