package js

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestStackLeavesOutBundleFrames: the stack of a bundled provider (an ES
// module, which esbuild wraps) that threw at load ended with a frame of
// the bundle's own wrapper, "at bad.js.bundle.js:8:3" (found by p159): a
// file that exists nowhere. The bundle's frames are left out when the
// stack has frames of the provider's own source.
func TestStackLeavesOutBundleFrames(t *testing.T) {
	rt := newRuntime(t, Options{})
	path := writeSource(t, "bad.js", "function helper() { throw new Error('boom at load'); }\nhelper();\nexport default {};\n")
	_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
	if err == nil {
		t.Fatal("loaded, want an error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "at helper (bad.js:1:") || !strings.Contains(msg, "bad.js:2:") {
		t.Fatalf("error %q lacks the provider's frames", msg)
	}
	if strings.Contains(msg, ".bundle.js") {
		t.Fatalf("error %q names the bundle's wrapper", msg)
	}
	// A stack of the bundle's frames alone keeps them: something is better
	// than nothing.
	if got := cleanStack("Error: x\n\tat __helper (p.js.bundle.js:3:1)"); !strings.Contains(got, "p.js.bundle.js:3:1") {
		t.Fatalf("cleanStack dropped the only frames: %q", got)
	}
}
