package wasm

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/jpeg"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// pngHeader is a PNG whose IHDR declares w×h 8-bit RGBA pixels, followed
// by a tiny IDAT and IEND: 60 bytes that ask a decoder for w*h*4 bytes.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6
	chunk("IHDR", ihdr)
	chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})
	chunk("IEND", nil)
	return b.Bytes()
}

// jpegClaiming is a real 16×16 JPEG whose frame header says w×h.
func jpegClaiming(t *testing.T, w, h uint16) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 16, 16)), nil); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	i := bytes.Index(data, []byte{0xff, 0xc0}) // SOF0: length(2) precision(1) height(2) width(2)
	if i < 0 {
		t.Fatal("no SOF0 in the encoded JPEG")
	}
	binary.BigEndian.PutUint16(data[i+5:], h)
	binary.BigEndian.PutUint16(data[i+7:], w)
	return data
}

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
		{"png 50000x50000", put(pngHeader(50000, 50000)), 16, 16, "a 50000x50000 image"},
		{"png 20000x20000", put(pngHeader(20000, 20000)), 16, 16, "a 20000x20000 image"},
		{"png 8000x8000", put(pngHeader(8000, 8000)), 16, 16, "a 8000x8000 image"},
		{"png 2^31-1 wide", put(pngHeader(1<<31-1, 1)), 16, 16, "2147483647x1"},
		{"jpeg 65000x65000", put(jpegClaiming(t, 65000, 65000)), 16, 16, "a 65000x65000 image"},
		{"output 8192x8192", small, 8192, 8192, "8192x8192"},
		{"output 8192x4096", small, 8192, 4096, "8192x4096"},
		{"jpeg 0x0", put(jpegClaiming(t, 0, 0)), 16, 16, "a 0x0 image"},
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

// progressiveJPEG is a JPEG of nComp components declaring w×h pixels with
// a progressive frame (SOF2) and one DC scan with no data: a decoder
// allocates the image and every component's coefficients (256 bytes per
// 8×8 block) at the scan's start, before reading any.
func progressiveJPEG(w, h uint16, nComp int) []byte {
	b := []byte{0xff, 0xd8} // SOI
	sof := []byte{0xff, 0xc2, 0, byte(8 + 3*nComp), 8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), byte(nComp)}
	for i := 1; i <= nComp; i++ {
		sof = append(sof, byte(i), 0x11, 0)
	}
	b = append(b, sof...)
	sos := []byte{0xff, 0xda, 0, byte(6 + 2*nComp), byte(nComp)}
	for i := 1; i <= nComp; i++ {
		sos = append(sos, byte(i), 0)
	}
	b = append(b, sos...)
	b = append(b, 0, 0, 0) // Ss=0, Se=0, Ah/Al=0
	return append(b, 0xff, 0xd9)
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
		o, err := env.SpaceWrite(context.Background(), "photos", progressiveJPEG(c.w, c.h, c.nComp))
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
