package wasm

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// boundedEnv serves reads only through abi.BoundedSpaceReader, counting
// the unbounded ones.
type boundedEnv struct {
	*fakeEnv
	size      int64
	whole     atomic.Int32 // unbounded SpaceRead calls
	askedMax  atomic.Int64
	boundedOK atomic.Int32
}

func (e *boundedEnv) SpaceRead(ctx context.Context, space, id string) (abi.Object, error) {
	e.whole.Add(1)
	return abi.Object{Space: space, ID: id, Data: make([]byte, e.size)}, nil
}

func (e *boundedEnv) SpaceReadAtMost(ctx context.Context, space, id string, max int64) (abi.Object, error) {
	e.askedMax.Store(max)
	if e.size > max {
		return abi.Object{}, &abi.ToolError{Code: abi.TooLarge, Message: "object too large", Data: map[string]any{"space": space, "size": e.size, "limit": max}}
	}
	e.boundedOK.Add(1)
	return abi.Object{Space: space, ID: id, Data: make([]byte, e.size)}, nil
}

// TestSpaceReadOverMessageBoundNotRead: a guest's space_read of an object
// whose answer could never pass runtimes.wasm.max_message_bytes (a 200 MB
// object under the 256 MiB max_object_bytes, with the 64 MiB default) had
// the host read and hash the whole object, encode a 200 MB answer, and
// only then refuse it TooLarge; the pooled instance kept the encoding
// buffer for good. The runtime asks the host for the object only when its
// size fits (abi.BoundedSpaceReader), and the error names the object, its
// space and size, as before.
func TestSpaceReadOverMessageBoundNotRead(t *testing.T) {
	const maxMsg = 4096
	id := "sha256:" + strings.Repeat("ab", 32)
	for engine, l := range probeLoaders(t, Config{PoolSize: 1, MaxMessageBytes: maxMsg}, nil) {
		t.Run(engine, func(t *testing.T) {
			p, err := l.Load(context.Background(), abi.Source{Path: probeGoGuest(t, probeHostCallsGuestSrc)})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			for _, c := range []struct {
				size    int64
				tooBig  bool
				wantMax int64
			}{{size: 100 << 20, tooBig: true}, {size: 1000}} {
				env := &boundedEnv{fakeEnv: newFakeEnv(p, 4), size: c.size}
				call := &abi.ToolCall{ID: "c1", Tool: "read", Params: map[string]any{"space": "photos", "id": id}, Deadline: time.Now().Add(30 * time.Second)}
				env.call = call
				_, err := p.Call(context.Background(), call, env)
				if env.whole.Load() != 0 {
					t.Fatalf("size %d: the runtime read the object whole (SpaceRead); want SpaceReadAtMost", c.size)
				}
				if m := env.askedMax.Load(); m <= 0 || m > maxMsg {
					t.Fatalf("size %d: asked for at most %d bytes; want a bound in (0, %d]", c.size, m, maxMsg)
				}
				if !c.tooBig {
					if err != nil || env.boundedOK.Load() != 1 {
						t.Fatalf("size %d: %v; want the object read", c.size, err)
					}
					continue
				}
				if abi.CodeOf(err) != abi.TooLarge {
					t.Fatalf("size %d: %v; want TooLarge", c.size, err)
				}
				for _, want := range []string{id, `"photos"`, "104857600 bytes", "max_message_bytes"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("size %d: %q; want it to name %q", c.size, err, want)
					}
				}
			}
		})
	}
}

// TestLargeBuffersNotKeptByPooledInstance: an instance kept for reuse
// held on to the largest host-call answer (hbuf) and call encoding (enc)
// it ever made: one read of a 60 MB object left 60 MB in each pooled
// instance for good (and an answer refused as over max_message_bytes,
// more). Buffers past keepBuf are let go after use.
func TestLargeBuffersNotKeptByPooledInstance(t *testing.T) {
	l := newTestLoader(t, Config{PoolSize: 1}, nil)
	p := load(t, l, probeGoGuest(t, probeHostCallsGuestSrc))
	env := newFakeEnv(p, 4)
	if v, err := call(p, env, "write-read", map[string]any{"space": "s", "n": 1 << 20}, 30*time.Second); err != nil || v.(map[string]any)["same"] != true {
		t.Fatalf("write-read: %v %v", v, err)
	}
	big := map[string]any{"space": "s", "n": 1, "pad": strings.Repeat("x", 1<<20)}
	if _, err := call(p, env, "write-read", big, 30*time.Second); err != nil {
		t.Fatalf("write-read with 1 MiB params: %v", err)
	}
	wp := p
	wp.liveMu.Lock()
	defer wp.liveMu.Unlock()
	if len(wp.live) == 0 {
		t.Fatal("no pooled instance")
	}
	for inst := range wp.live {
		if cap(inst.hbuf) > keepBuf || cap(inst.enc) > keepBuf {
			t.Errorf("a pooled instance keeps buffers of %d (answers) and %d (calls) bytes; want at most %d", cap(inst.hbuf), cap(inst.enc), keepBuf)
		}
	}
}
