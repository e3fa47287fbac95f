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
	_ "image/gif"
	"image/jpeg"
	"image/png"
	"runtime"
	"runtime/debug"
	"unsafe"

	"github.com/aios-host/aios-host/samples/internal/imagebounds"
	"golang.org/x/image/draw"
)

func main() {}

// The image's size is checked from its header before any pixel is
// decoded, and the resize's memory bounded (imagebounds), so the guest's
// memory (256 MiB by default) also holds the object and the encoded
// output.
func init() { debug.SetMemoryLimit(imagebounds.HeapLimit) }

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
	if err := imagebounds.CheckOutput(w, h); err != nil {
		return "", 0, err
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
	if err := imagebounds.Check(id, data, w, h); err != nil {
		if ni, ok := err.(*imagebounds.ErrNotImage); ok {
			return "", 0, fmt.Errorf("decode %s: %v", id, ni.Err)
		}
		return "", 0, err
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
