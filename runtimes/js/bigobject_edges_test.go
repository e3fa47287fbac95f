package js

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/proclimit"
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

// TestProcessSpaceWriteOverFrameIsTooLarge: ctx.spaces.write of 50 MiB
// from a JS tool in a worker process (under max_object_bytes, but its
// base64 passes the frame limit) failed InvalidParams "space_write:
// cannot send the request to the host: message of 69905150 bytes exceeds
// the frame limit of 68157440", naming neither the space nor the data's
// size, and calling a size a malformed argument. It is TooLarge naming
// the bytes, the space and the frame limit.
func TestProcessSpaceWriteOverFrameIsTooLarge(t *testing.T) {
	opts := Options{Isolation: IsolationProcess}
	if proclimit.Race {
		// The race detector's shadow memory of the worker's 50 MiB
		// array and its base64 does not fit the default 1 GiB.
		opts.ProcessMemory = 4 << 30
	}
	rt := newRuntime(t, opts)
	p, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "bigw.js", `
aios.registerTool({name: 'wr', parameters: {type: 'object'}}, async (p, ctx) => {
  try { return 'stored ' + await ctx.spaces.write('big', new Uint8Array(50 * 1024 * 1024)); }
  catch (e) { return e.code + ': ' + e.message; }
});
`)}, abi.RuntimeJS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	env := newFakeEnv()
	c := &abi.ToolCall{ID: "c1", Tool: "wr", Params: map[string]any{}, Deadline: time.Now().Add(2 * time.Minute)}
	env.call = c
	v, err := p.Call(context.Background(), c, env)
	if err != nil {
		t.Fatalf("wr: %v; want the tool to catch a TooLarge", err)
	}
	got, _ := v.(string)
	if !strings.HasPrefix(got, "TooLarge: ") || !strings.Contains(got, "52428800 bytes") || !strings.Contains(got, `"big"`) || !strings.Contains(got, "frame limit") {
		t.Errorf("wr: %q; want TooLarge naming the 52428800 bytes, the space and the frame limit", got)
	}
}
