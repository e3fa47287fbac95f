package wasm

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"

	"github.com/aios-host/aios-host/internal/testutil"
)

// TestImageResizeBombs: a tiny image declaring huge dimensions (a
// decompression bomb) and a schema-valid output of 8192×8192 crashed the
// guest (ProviderCrashed: "makeslice: len out of range" or "the guest
// trapped: wasm error: unreachable", its 256 MiB memory exhausted) instead
// of being refused as InvalidParams saying what is too big, before any
// pixel is decoded.
func TestImageResizeBombs(t *testing.T) {
	l := newTestLoader(t, Config{}, nil)
	p := load(t, l, builtGuest(t, "image-resize"))
	env := newFakeEnv(p, 2)
	put := func(data []byte) string {
		o, err := env.SpaceWrite(context.Background(), "photos", data)
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
		{"png 50000x50000", put(testutil.PNGClaiming(50000, 50000)), 16, 16, "a 50000x50000 image"},
		{"png 20000x20000", put(testutil.PNGClaiming(20000, 20000)), 16, 16, "a 20000x20000 image"},
		{"png 8000x8000", put(testutil.PNGClaiming(8000, 8000)), 16, 16, "a 8000x8000 image"},
		{"png 2^31-1 wide", put(testutil.PNGClaiming(1<<31-1, 1)), 16, 16, "2147483647x1"},
		{"jpeg 65000x65000", put(testutil.JPEGClaiming(t, 65000, 65000)), 16, 16, "a 65000x65000 image"},
		{"output 8192x8192", small, 8192, 8192, "8192x8192"},
		{"output 8192x4096", small, 8192, 4096, "8192x4096"},
		{"jpeg 0x0", put(testutil.JPEGClaiming(t, 0, 0)), 16, 16, "a 0x0 image"},
	}
	for _, c := range cases {
		for _, format := range []string{"png", "jpeg"} {
			start := time.Now()
			_, err := call(p, env, "image-resize", map[string]any{"object_id": c.id, "width": c.w, "height": c.h, "format": format}, 20*time.Second)
			if abi.CodeOf(err) != abi.InvalidParams || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s → %s: %v; want InvalidParams naming %q", c.name, format, err, c.want)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("%s → %s: refused after %v; the size should be checked before decoding", c.name, format, d)
			}
		}
	}
	// The provider still serves.
	got, err := call(p, env, "image-resize", map[string]any{"object_id": small, "width": int64(4), "height": int64(4), "format": "png"}, 20*time.Second)
	if err != nil || got.(map[string]any)["output_id"] == "" {
		t.Fatalf("resize after the bombs: %v %v", got, err)
	}
}

// TestImageResizeProgressiveJPEG: a progressive JPEG takes far more
// memory to decode than its pixels (the coefficients of every block are
// kept, 4 bytes a pixel per component): a 40-byte one declaring 4096×4096
// YCbCr pixels (48 MiB by 3 bytes a pixel, within the budget) made the
// decoder ask for 240 MiB and the guest trap.
func TestImageResizeProgressiveJPEG(t *testing.T) {
	l := newTestLoader(t, Config{}, nil)
	p := load(t, l, builtGuest(t, "image-resize"))
	env := newFakeEnv(p, 2)
	for _, c := range []struct {
		w, h  uint16
		nComp int
	}{{4096, 4096, 3}, {8000, 8000, 1}, {3000, 3000, 3}} {
		o, err := env.SpaceWrite(context.Background(), "photos", testutil.ProgressiveJPEG(c.w, c.h, c.nComp))
		if err != nil {
			t.Fatal(err)
		}
		_, err = call(p, env, "image-resize", map[string]any{"object_id": o.ID, "width": int64(16), "height": int64(16), "format": "png"}, 20*time.Second)
		if abi.CodeOf(err) != abi.InvalidParams {
			t.Errorf("progressive %dx%d, %d components: %v; want InvalidParams", c.w, c.h, c.nComp, err)
		}
	}
	// A baseline JPEG is read as before.
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewRGBA(image.Rect(0, 0, 64, 48)), nil); err != nil {
		t.Fatal(err)
	}
	o, _ := env.SpaceWrite(context.Background(), "photos", b.Bytes())
	if _, err := call(p, env, "image-resize", map[string]any{"object_id": o.ID, "width": int64(16), "height": int64(12), "format": "jpeg"}, 20*time.Second); err != nil {
		t.Fatalf("baseline JPEG: %v", err)
	}
}

// TestGoGuestHeapCollected: the image-resize Go guest serving call after
// call on one instance keeps its memory near what one call needs. Before,
// from about its 320th call its memory grew by what each call allocated
// (≈ 1 MiB: the PNG encoder's compressor) until the instance was retired at
// three quarters of its limit: the Go runtime's collector had stopped. The
// guest (no Clock grant) read a fake monotonic clock that advanced 1 ms at
// each reading, with which the runtime's GC CPU limiter timed the
// collector's assists (two readings each) as most of the guest's time and
// turned them off, and in a wasmexport reactor nothing else finished the
// cycle. The clock is now virtual (virtualClock: 1 ns a reading). With a
// real clock the collector never stalled.
func TestGoGuestHeapCollected(t *testing.T) {
	l := newTestLoader(t, Config{PoolSize: 1}, nil)
	p := load(t, l, builtGuest(t, "image-resize"))
	env := newFakeEnv(p, 2)
	src, err := env.SpaceWrite(context.Background(), "photos", testPNG(t, 64, 48))
	if err != nil {
		t.Fatal(err)
	}
	var first *instance
	var most uint32
	for i := range 450 {
		if _, err := call(p, env, "image-resize", map[string]any{"object_id": src.ID, "width": int64(16), "height": int64(12), "format": "png"}, 10*time.Second); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		inst := p.pool.slots[0].p.Load()
		if inst == nil {
			t.Fatalf("call %d: no idle instance after the call (it was retired or discarded)", i)
		}
		if first == nil {
			first = inst
		} else if inst != first {
			t.Fatalf("call %d: the instance was replaced (its memory had reached %d MiB)", i, most>>20)
		}
		most = max(most, inst.mem.Size())
	}
	if most > 48<<20 {
		t.Fatalf("the guest's memory grew to %d MiB over 450 calls of a 64×48 image; want it near what one call needs (≈ 10 MiB)", most>>20)
	}
}
