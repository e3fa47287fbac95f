package component

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// boundedEnv is fakeEnv with abi.BoundedSpaceReader as the host has it:
// an object over the reader's bound is refused by its size, unread.
type boundedEnv struct {
	fakeEnv
	reads atomic.Int64 // objects read whole
}

func (e *boundedEnv) SpaceRead(ctx context.Context, space, id string) (abi.Object, error) {
	e.reads.Add(1)
	return e.fakeEnv.SpaceRead(ctx, space, id)
}

func (e *boundedEnv) SpaceReadAtMost(ctx context.Context, space, id string, max int64) (abi.Object, error) {
	e.mu.Lock()
	b, ok := e.objects[id]
	e.mu.Unlock()
	if ok && max > 0 && int64(len(b)) > max {
		return abi.Object{}, &abi.ToolError{Code: abi.TooLarge, Message: "over the reader's bound",
			Data: map[string]any{"space": "images", "size": int64(len(b)), "limit": max}}
	}
	return e.SpaceRead(ctx, space, id)
}

// TestSpacesReadOverMemoryLimitRefused: a component's spaces.read of an
// object larger than its memories may grow (memory_limit_pages) was read
// and hashed whole by the host, then failed lowering into the guest as
// ProviderCrashed "import aios:sdk/spaces@0.1.0#read: result.ok: realloc
// returned [0, 68157440), out of bounds of memory of 28639232 bytes",
// naming neither the object nor the setting. It is refused unread: the
// guest gets TooLarge naming the object, its size and the limit.
func TestSpacesReadOverMemoryLimitRefused(t *testing.T) {
	p, err := New(context.Background(), sample(t, "imagetools"), "imagetools.wasm", "", Options{CacheDir: testCacheDir(), MemoryLimitPages: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	env := &boundedEnv{}
	o, err := env.fakeEnv.SpaceWrite(t.Context(), "images", make([]byte, 65<<20))
	if err != nil {
		t.Fatal(err)
	}
	_, err = call(t, p, env, "resize", map[string]any{"params": map[string]any{"object-id": o.ID, "width": int64(4), "height": int64(4), "format": "png"}})
	if abi.CodeOf(err) == abi.ProviderCrashed || !strings.Contains(err.Error(), o.ID) || !strings.Contains(err.Error(), "68157440 bytes") || !strings.Contains(err.Error(), "memory_limit_pages") {
		t.Errorf("%v; want the read refused naming the object, its size and memory_limit_pages", err)
	}
	if n := env.reads.Load(); n != 0 {
		t.Errorf("the object was read %d times; want it refused by its size", n)
	}
}
