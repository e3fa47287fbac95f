//go:build wasip1

// Command imagetools is the seed's image-tools component (§9.6) as a Go
// guest: it reads an image from Space storage through aios:sdk/spaces,
// resizes it and writes the result back. Build with
// GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared, then
// `jco embed` + `jco new --wasi-reactor` (samples/components/build.sh).
//
// The Canonical ABI is written by hand: cabi_realloc serves a static arena
// (the WASI adapter may call it before the Go runtime is initialised, so it
// must not touch the Go heap), reset after every call by the post-return
// function.
package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	_ "image/gif"
	"image/jpeg"
	"image/png"
	"runtime"
	"runtime/debug"
	"unsafe"

	"golang.org/x/image/draw"
)

func main() {}

// Memory bounds, as in samples/wasm/image-resize: an output's raster is
// one allocation of 4 bytes a pixel (maxPixels: 64 MiB at most); the
// decoded source, the output raster and the Catmull-Rom scaler's rows (32
// bytes for each output column of each source row) together stay under
// memBudget, so the guest's memory (256 MiB by default) also holds the
// object and the encoded output. The source's size is taken from its
// header before any pixel is decoded: a 60-byte PNG can declare
// 50000×50000 pixels, 10 GB to decode. heapLimit is the Go heap's soft
// limit, so the garbage of an earlier call is collected before the heap
// grows past it.
const (
	maxPixels = 4096 * 4096
	memBudget = 128 << 20
	heapLimit = 192 << 20
)

func init() { debug.SetMemoryLimit(heapLimit) }

// resizeBytes estimates what scaling a sw×sh source of bpp bytes a pixel
// to dw×dh takes, in floating point: a header may declare sides of
// 2^31-1, whose products overflow int64.
func resizeBytes(sw, sh, bpp, dw, dh int) float64 {
	return float64(sw)*float64(sh)*float64(bpp) + float64(dw)*float64(dh)*4 + float64(dw)*float64(sh)*32
}

// bytesPerPixel is what decoding a pixel of model m takes, at most. A
// progressive JPEG's decoder also keeps every block's coefficients until
// the last scan: 4 bytes a pixel for each component (a 40-byte one
// declaring 4096×4096 YCbCr pixels asks for 240 MiB, not 48).
func bytesPerPixel(m color.Model, progressive bool) int {
	n, comps := 4, 4
	switch m {
	case color.GrayModel:
		n, comps = 1, 1
	case color.Gray16Model:
		n, comps = 2, 1
	case color.YCbCrModel:
		n, comps = 3, 3
	case color.RGBA64Model, color.NRGBA64Model:
		n = 8
	}
	if progressive {
		n += 4 * comps
	}
	return n
}

// jpegProgressive reports whether the JPEG data's frame header is
// progressive (SOF2), walking its segments up to the first frame header.
func jpegProgressive(data []byte) bool {
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xff {
			return false
		}
		switch m := data[i+1]; {
		case m == 0xff: // fill byte
			i++
			continue
		case m == 0xc2:
			return true
		case m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc: // another frame header
			return false
		case m == 0x01 || m >= 0xd0 && m <= 0xd8: // no length
			i += 2
			continue
		}
		i += 2 + (int(data[i+2])<<8 | int(data[i+3]))
	}
	return false
}

const arenaSize = 24 << 20

var (
	arena    [arenaSize]byte
	arenaTop uint32
)

//go:wasmexport cabi_realloc
func cabiRealloc(old, oldSize, align, newSize uint32) uint32 {
	base := uint32(uintptr(unsafe.Pointer(&arena[0])))
	p := (base + arenaTop + align - 1) &^ (align - 1)
	end := p - base + newSize
	if end > arenaSize {
		return 0 // the host refuses the out-of-range pointer
	}
	arenaTop = end
	if old != 0 && oldSize > 0 {
		copy(arena[p-base:p-base+min(oldSize, newSize)], unsafe.Slice((*byte)(unsafe.Pointer(uintptr(old))), oldSize))
	}
	return p
}

func guestBytes(p, n uint32) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(uintptr(p))), n)
}

func ptrLen(b []byte) (uint32, uint32) {
	if len(b) == 0 {
		return 0, 0
	}
	return uint32(uintptr(unsafe.Pointer(&b[0]))), uint32(len(b))
}

// Imports: result<list<u8>, string> and result<string, string> come back
// through a return area of {disc u8 @0; ptr @4; len @8}.
type retArea struct {
	disc uint8
	_    [3]byte
	ptr  uint32
	n    uint32
}

//go:wasmimport aios:sdk/spaces@0.1.0 read
func spacesRead(idPtr, idLen uint32, ret unsafe.Pointer)

//go:wasmimport aios:sdk/spaces@0.1.0 write
func spacesWrite(spacePtr, spaceLen, dataPtr, dataLen uint32, ret unsafe.Pointer)

// resizeRet is result<tool-result, string>: disc @0, payload @8:
// output-id string @8, original-size u64 @16, resized-size u64 @24.
type resizeRet struct {
	disc     uint32
	_        uint32
	strPtr   uint32
	strLen   uint32
	origSize uint64
	newSize  uint64
}

var ret resizeRet

// keep holds Go-allocated memory that the host reads after resize returns,
// until post-return.
var keep [][]byte

//go:wasmexport my-tools:image-tools/tool-handler@1.0.0#resize
func resize(idPtr, idLen, width, height, fmtPtr, fmtLen uint32) uint32 {
	id := string(guestBytes(idPtr, idLen))
	format := string(guestBytes(fmtPtr, fmtLen))
	out, orig, err := run(id, int(width), int(height), format)
	if err != nil {
		msg := []byte(err.Error())
		keep = append(keep, msg)
		ret = resizeRet{disc: 1}
		ret.strPtr, ret.strLen = ptrLen(msg)
		return uint32(uintptr(unsafe.Pointer(&ret)))
	}
	idb := []byte(out)
	keep = append(keep, idb)
	ret = resizeRet{disc: 0, origSize: uint64(orig)}
	ret.strPtr, ret.strLen = ptrLen(idb)
	ret.newSize = resized
	return uint32(uintptr(unsafe.Pointer(&ret)))
}

var resized uint64

//go:wasmexport cabi_post_my-tools:image-tools/tool-handler@1.0.0#resize
func resizePost(uint32) {
	keep = keep[:0]
	arenaTop = 0
}

func run(id string, w, h int, format string) (string, int, error) {
	if w <= 0 || h <= 0 || w > 8192 || h > 8192 {
		return "", 0, fmt.Errorf("width and height must be 1..8192, got %dx%d", w, h)
	}
	if w*h > maxPixels {
		return "", 0, fmt.Errorf("an output of %dx%d is %d pixels, more than the limit of %d (4096x4096): ask for fewer", w, h, w*h, maxPixels)
	}
	var r retArea
	idb := []byte(id)
	ip, il := ptrLen(idb)
	spacesRead(ip, il, unsafe.Pointer(&r))
	runtime.KeepAlive(idb)
	if r.disc != 0 {
		return "", 0, fmt.Errorf("read %s: %s", id, guestBytes(r.ptr, r.n))
	}
	data := guestBytes(r.ptr, r.n)
	cfg, kind, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return "", 0, fmt.Errorf("decode %s: %v", id, err)
	}
	if cfg.Width < 1 || cfg.Height < 1 {
		return "", 0, fmt.Errorf("%s is a %dx%d image, with no pixels", id, cfg.Width, cfg.Height)
	}
	if need := resizeBytes(cfg.Width, cfg.Height, bytesPerPixel(cfg.ColorModel, kind == "jpeg" && jpegProgressive(data)), w, h); need > memBudget {
		return "", 0, fmt.Errorf("resizing %s, a %dx%d image, to %dx%d needs about %.0f MiB, more than the limit of %d MiB: ask for a smaller output or give a smaller image", id, cfg.Width, cfg.Height, w, h, need/(1<<20), memBudget>>20)
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return "", 0, fmt.Errorf("decode %s: %v", id, err)
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
	var buf bytes.Buffer
	switch format {
	case "png", "":
		err = png.Encode(&buf, dst)
	case "jpeg", "jpg":
		err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85})
	default:
		return "", 0, fmt.Errorf("format %q: want png or jpeg", format)
	}
	if err != nil {
		return "", 0, fmt.Errorf("encode: %v", err)
	}
	resized = uint64(buf.Len())
	space := []byte("images")
	sp, sl := ptrLen(space)
	dp, dl := ptrLen(buf.Bytes())
	var wr retArea
	spacesWrite(sp, sl, dp, dl, unsafe.Pointer(&wr))
	runtime.KeepAlive(space)
	runtime.KeepAlive(&buf)
	if wr.disc != 0 {
		return "", 0, fmt.Errorf("write: %s", guestBytes(wr.ptr, wr.n))
	}
	return string(guestBytes(wr.ptr, wr.n)), len(data), nil
}
