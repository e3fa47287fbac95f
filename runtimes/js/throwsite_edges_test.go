package js

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestThrownValueStackLeavesOutBundle: the stack of a thrown value that is
// not an Error (a string, null, a plain object) was goja's frames as they
// were, so it named the bundle's own wrapper, a file that exists nowhere
// ("at <anonymous> (bad.js.bundle.js:4:3)" in the load error of a file
// whose top-level code threw null), where an Error's stack leaves such
// frames out. Both leave them out now.
func TestThrownValueStackLeavesOutBundle(t *testing.T) {
	rt := newRuntime(t, Options{})
	path := writeSource(t, "bad.js", "throw null;\n")
	_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
	if err == nil {
		t.Fatal("loaded, want the top-level throw's error")
	}
	if msg := err.Error(); strings.Contains(msg, ".bundle.js") || !strings.Contains(msg, "uncaught null (at bad.js:1:1)") {
		t.Fatalf("load error %q: want uncaught null at bad.js:1:1 and no frame of the bundle", msg)
	}

	p := loadSource(t, rt, "thrown.ts", `
function fail(): never { throw { reason: 'missing' }; }
aios.registerTool({ name: 'f', parameters: {} }, () => fail());
`)
	_, err = call(t, p, newFakeEnv(), "f", map[string]any{}, 5*time.Second)
	te := wantCode(t, err, abi.ProviderError)
	st, _ := te.Data.(map[string]any)["stack"].(string)
	if strings.Contains(st, ".bundle.js") || !strings.Contains(st, "thrown.ts:2:") {
		t.Fatalf("data.stack %q: want the provider's frames and none of the bundle's", st)
	}
}

// TestThrownValueDeepStackCountsFrames: the stack of a value thrown 30
// calls deep was cut at 12 frames with "... N more frames" and then cut
// again, the second time counting that line as a frame: "... 1 more
// frames" for some twenty.
func TestThrownValueDeepStackCountsFrames(t *testing.T) {
	rt := newRuntime(t, Options{})
	p := loadSource(t, rt, "deep.js", `
function down(n) { if (n === 0) throw 'bottom'; return down(n - 1); }
aios.registerTool({ name: 'deep', parameters: {} }, () => down(30));
`)
	_, err := call(t, p, newFakeEnv(), "deep", map[string]any{}, 5*time.Second)
	te := wantCode(t, err, abi.ProviderError)
	st, _ := te.Data.(map[string]any)["stack"].(string)
	lines := strings.Split(st, "\n")
	last := lines[len(lines)-1]
	var more int
	if _, err := fmt.Sscanf(strings.TrimSpace(last), "... %d more frames", &more); err != nil || more < 19 || strings.Count(st, "more frames") != 1 {
		t.Fatalf("data.stack %q: want 12 frames and one line counting the 19 or more left out", st)
	}
}
