package js

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// boundedEnv is fakeEnv with abi.BoundedSpaceReader, counting the reads
// of a whole object.
type boundedEnv struct {
	*fakeEnv
	whole    atomic.Int32
	askedMax atomic.Int64
}

func (e *boundedEnv) SpaceRead(ctx context.Context, space, id string) (abi.Object, error) {
	e.whole.Add(1)
	return e.fakeEnv.SpaceRead(ctx, space, id)
}

func (e *boundedEnv) SpaceReadAtMost(ctx context.Context, space, id string, max int64) (abi.Object, error) {
	e.askedMax.Store(max)
	o, err := e.fakeEnv.SpaceRead(ctx, space, id)
	if err == nil && int64(len(o.Data)) > max {
		return abi.Object{}, &abi.ToolError{Code: abi.TooLarge, Message: "over the bound", Data: map[string]any{"space": o.Space, "size": int64(len(o.Data)), "limit": max}}
	}
	return o, err
}

// TestProcessSpaceReadOverFrameNotRead: a JS tool in a worker process
// reading an object whose answer cannot pass the frame limit had the host
// read (and hash) it whole, base64 it, and only then find it too large
// to send. The host is asked for an object that fits the frame
// (abi.BoundedSpaceReader); one over it is TooLarge as before, naming
// the object, its space and the frame limit, and one under it is read.
func TestProcessSpaceReadOverFrameNotRead(t *testing.T) {
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
	for _, n := range []int{50 << 20, 1000} {
		env := &boundedEnv{fakeEnv: newFakeEnv()}
		obj, _ := env.SpaceWrite(context.Background(), "big", make([]byte, n))
		c := &abi.ToolCall{ID: "c1", Tool: "rd", Params: map[string]any{"id": obj.ID}, Deadline: time.Now().Add(2 * time.Minute)}
		env.call = c
		v, err := p.Call(context.Background(), c, env)
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if env.whole.Load() != 0 {
			t.Fatalf("%d bytes: the host was asked for the whole object (SpaceRead); want SpaceReadAtMost", n)
		}
		if m := env.askedMax.Load(); m <= 0 || m > maxWorkerFrame {
			t.Fatalf("%d bytes: bound %d; want one in (0, %d]", n, m, maxWorkerFrame)
		}
		got, _ := v.(string)
		if n == 1000 {
			if got != "read 1000" {
				t.Errorf("1000 bytes: %q; want it read", got)
			}
			continue
		}
		if !strings.HasPrefix(got, "TooLarge: ") || !strings.Contains(got, obj.ID) || !strings.Contains(got, `"big"`) || !strings.Contains(got, "frame limit") {
			t.Errorf("%d bytes: %q; want TooLarge naming the object, its space and the frame limit", n, got)
		}
	}
}
