package js

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestConsoleTraceFramesAsErrorStacks: console.trace wrote goja's raw
// stack, each frame with the bytecode offset goja appends
// ("at inner (trace.ts:3:17(12))") and the line ending in a newline, where
// an error's data.stack has them cut ("at inner (trace.ts:3:17)") (found
// by p159). Its frames are written as an error's stack writes them, with
// no empty line after the last, in both isolations.
func TestConsoleTraceFramesAsErrorStacks(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) {
			rt := newRuntime(t, Options{Isolation: iso})
			p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "trace.ts", `aios.provider({ id: 'org.test.trace' });
function inner(n: number): number {
  console.trace('deep', n);
  return n;
}
aios.registerTool({ name: 't', parameters: {} }, () => inner(1));
`)}, abi.RuntimeTS)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			env := newFakeEnv()
			c := &abi.ToolCall{ID: "c1", Tool: "t", Params: map[string]any{}, Deadline: time.Now().Add(30 * time.Second)}
			env.call = c
			if got, err := p.Call(context.Background(), c, env); err != nil || got != int64(1) {
				t.Fatalf("call: %v %v", got, err)
			}
			env.mu.Lock()
			var trace string
			for _, l := range env.logs {
				if strings.HasPrefix(l, "INFO Trace: deep 1") {
					trace = l
				}
			}
			env.mu.Unlock()
			if !strings.Contains(trace, "\n\tat inner (trace.ts:3:") {
				t.Fatalf("trace %q lacks the frame of inner at trace.ts:3", trace)
			}
			if regexp.MustCompile(`:\d+:\d+\(\d+\)`).MatchString(trace) {
				t.Errorf("trace %q holds goja's bytecode offsets after line:col", trace)
			}
			if strings.HasSuffix(trace, "\n") {
				t.Errorf("trace %q ends in an empty line", trace)
			}
		})
	}
}
