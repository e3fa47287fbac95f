package component

import (
	"context"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"

	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/tetratelabs/wazero/api"
)

// TestImageToolsBombs: the image-tools component decoded a source
// without looking at its declared size, and allowed outputs of 8192×8192:
// a 60-byte PNG declaring 20000×20000 pixels, a 40-byte progressive JPEG
// declaring 8000×8000 (whose coefficients take 4 bytes a pixel more), or
// an output of 8192×8192, exhausted the guest's memory (ProviderCrashed: the guest trapped)
// instead of being refused with an error naming the size.
func TestImageToolsBombs(t *testing.T) {
	p := load(t, "imagetools")
	env := &fakeEnv{}
	put := func(data []byte) string {
		o, err := env.SpaceWrite(t.Context(), "images", data)
		if err != nil {
			t.Fatal(err)
		}
		return o.ID
	}
	small := put(testPNG(t, 8, 8))
	cases := []struct {
		name, id string
		w, h     int64
		want     string
	}{
		{"png 50000x50000", put(testutil.PNGClaiming(50000, 50000)), 16, 16, "50000x50000"},
		{"png 20000x20000", put(testutil.PNGClaiming(20000, 20000)), 16, 16, "20000x20000"},
		{"png 2^31-1 wide", put(testutil.PNGClaiming(1<<31-1, 1)), 16, 16, "2147483647x1"},
		{"output 8192x8192", small, 8192, 8192, "8192x8192"},
		{"progressive jpeg 8000x8000 gray", put(testutil.ProgressiveJPEG(8000, 8000, 1)), 16, 16, "8000x8000"},
		{"progressive jpeg 4096x4096 ycbcr", put(testutil.ProgressiveJPEG(4096, 4096, 3)), 16, 16, "4096x4096"},
	}
	for _, c := range cases {
		start := time.Now()
		_, err := call(t, p, env, "resize", map[string]any{"params": map[string]any{"object-id": c.id, "width": c.w, "height": c.h, "format": "png"}})
		if abi.CodeOf(err) != abi.ProviderError || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want the tool's error naming %q", c.name, err, c.want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: refused after %v; the size should be checked before decoding", c.name, d)
		}
	}
	if _, err := call(t, p, env, "resize", map[string]any{"params": map[string]any{"object-id": small, "width": int64(4), "height": int64(4), "format": "png"}}); err != nil {
		t.Fatalf("resize after the bombs: %v", err)
	}
}

// TestComponentTrapOneLine: a component that traps gave a
// ProviderCrashed whose message carried wazero's whole wasm stack trace
// ("wasm error: unreachable\nwasm stack trace:\n\t.$1(i32,i32)…", dozens
// of lines for a Go guest) to the caller and the audit log; the core
// module runtime and the wasmtime component engine keep the first line.
func TestComponentTrapOneLine(t *testing.T) {
	b, err := hex.DecodeString(canonOptHex["strParamOK"]) // its run is `unreachable`
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), b, "trap.wasm", "", Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = call(t, p, &fakeEnv{}, "run", map[string]any{"s": "hi"})
	if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), "unreachable") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("%q; want one line of ProviderCrashed naming the trap", err)
	}
}

// TestGoComponentHeapCollected: the image-tools component (a Go guest)
// serving call after call keeps its memory near what one call needs.
// Before, from about its 350th call its memory grew by what each call
// allocated (≈ 1 MiB) until the instance ran out of memory and calls
// crashed: the Go runtime's collector had stopped under the fake monotonic
// clock's 1 ms step, as in the core-module Go guests (runtimes/wasm
// TestGoGuestHeapCollected, where the reason is told). monotonicNow is now
// a virtual clock (1 ns a reading).
func TestGoComponentHeapCollected(t *testing.T) {
	p := load(t, "imagetools")
	env := &fakeEnv{}
	in, err := env.SpaceWrite(t.Context(), "images", testPNG(t, 64, 48))
	if err != nil {
		t.Fatal(err)
	}
	var most uint32
	for i := range 450 {
		if _, err := call(t, p, env, "resize", map[string]any{"params": map[string]any{"object-id": in.ID, "width": int64(16), "height": int64(12), "format": "png"}}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if i%25 != 0 {
			continue
		}
		inst := <-p.pool
		var size uint32
		for _, m := range inst.mods {
			if m != nil && len(m.ExportedMemoryDefinitions()) > 0 {
				size += m.Memory().Size()
			}
		}
		p.pool <- inst
		most = max(most, size)
	}
	if most > 64<<20 {
		t.Fatalf("the component's memory grew to %d MiB over 450 calls of a 64×48 image; want it near what one call needs (≈ 35 MiB)", most>>20)
	}
}

// TestComponentRetiredPastThreeQuarters: an instance whose memory has grown
// past three quarters of MemoryLimitPages is closed after its call instead
// of pooled, and the next call gets a fresh one (as core modules do). Go
// guests never give their heap back; before, such an instance was reused
// until a call ran out of memory.
func TestComponentRetiredPastThreeQuarters(t *testing.T) {
	const pages = 256 // 16 MiB: retired past 12 MiB
	p, err := New(context.Background(), sample(t, "hello"), "hello.wasm", "", Options{CacheDir: testCacheDir(), MemoryLimitPages: pages})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	add := map[string]any{"a": int64(1), "b": int64(2)}
	if _, err := call(t, p, &fakeEnv{}, "add", add); err != nil {
		t.Fatal(err)
	}
	inst := <-p.pool
	var mem api.Memory
	for _, m := range inst.mods {
		if m != nil && len(m.ExportedMemoryDefinitions()) > 0 {
			mem = m.Memory()
		}
	}
	if mem == nil {
		t.Fatal("the hello component's instance has no memory")
	}
	// Within three quarters: pooled again.
	if _, ok := mem.Grow(pages*3/4 - mem.Size()/65536); !ok {
		t.Fatal("grow to three quarters failed")
	}
	p.put(inst)
	if got := <-p.pool; got != inst {
		t.Fatal("an instance at three quarters of its memory limit was not pooled")
	}
	// Past them: closed, not pooled.
	if _, ok := mem.Grow(1); !ok {
		t.Fatal("grow past three quarters failed")
	}
	p.put(inst)
	if len(p.pool) != 0 {
		t.Fatal("an instance past three quarters of its memory limit was pooled again")
	}
	if v, err := call(t, p, &fakeEnv{}, "add", add); err != nil || v != int64(3) {
		t.Fatalf("the call after the retirement: %v, %v", v, err)
	}
	if got := <-p.pool; got == inst {
		t.Fatal("the retired instance served again")
	}
}
