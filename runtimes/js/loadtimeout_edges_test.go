package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestTopLevelLoopNamesLoadTimeout: a provider whose top-level code never
// ends failed to load with "top-level code failed: deadline exceeded: the
// JS handler of provider … was interrupted": no handler was running, and
// the error named neither the limit it ran past (runtimes.js.load_timeout)
// nor where in the file it was, which a top-level throw names (found by
// p118). It now says the top-level code ran past the load timeout, names
// the key and the line it was interrupted at, in a worker process as
// in-process.
func TestTopLevelLoopNamesLoadTimeout(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso, LoadTimeout: 300 * time.Millisecond})
			path := writeSource(t, "loop.ts", "const n: number = 1;\n\nlet i = 0;\nwhile (n > 0) { i++; }\naios.registerTool({ name: 'never' }, () => 1);\n")
			_, err := rt.load(context.Background(), abi.Source{Path: path}, runtimeOf(path))
			if err == nil {
				t.Fatal("loaded, want an error")
			}
			msg := err.Error()
			for _, w := range []string{path, "top-level code", "load timeout", "runtimes.js.load_timeout", "loop.ts:4:"} {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if strings.Contains(msg, "JS handler") {
				t.Errorf("error %q speaks of a handler: none was running", msg)
			}
		})
	}
}
