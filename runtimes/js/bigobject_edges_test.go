package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestProcessSpaceReadOverFrameIsTooLarge: a JS tool in a worker process
// reading an object whose answer (base64) passes the frame limit between
// the host and the worker (a 50 MiB object, under max_object_bytes) got
// no answer at all: the host failed to encode it, logged that at debug
// level, and the tool waited for ctx.spaces.read until the call's
// deadline, told only Timeout. The read now fails at once with TooLarge
// naming the object, its space and the limit, and the tool can catch it.
func TestProcessSpaceReadOverFrameIsTooLarge(t *testing.T) {
	rt := newRuntime(t, Options{Isolation: IsolationProcess})
	p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "big.js", `
aios.registerTool({name: 'rd', parameters: {type: 'object'}}, async (p, ctx) => {
  try { const b = await ctx.spaces.readBytes(p.id, 'big'); return 'read ' + b.length; }
  catch (e) { return e.code + ': ' + e.message; }
});
`)}, abi.RuntimeJS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	env := newFakeEnv()
	obj, _ := env.SpaceWrite(context.Background(), "big", make([]byte, 50<<20))
	c := &abi.ToolCall{ID: "c1", Tool: "rd", Params: map[string]any{"id": obj.ID}, Deadline: time.Now().Add(2 * time.Minute)}
	env.call = c
	start := time.Now()
	v, err := p.Call(context.Background(), c, env)
	if err != nil {
		t.Fatalf("rd: %v after %v; want the tool to catch a TooLarge", err, time.Since(start).Round(time.Millisecond))
	}
	got, _ := v.(string)
	if !strings.HasPrefix(got, "TooLarge: ") || !strings.Contains(got, obj.ID) || !strings.Contains(got, `"big"`) || !strings.Contains(got, "frame limit") {
		t.Errorf("rd: %q; want TooLarge naming the object, its space and the frame limit", got)
	}
}
