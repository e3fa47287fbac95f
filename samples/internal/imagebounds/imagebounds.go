// Package imagebounds is what the image samples (the image-resize core
// module and the image-tools component) check before they decode an
// image, so that a resize fits a guest's memory (256 MiB by default,
// runtimes.wasm.memory_limit_pages) and a bomb — a 60-byte PNG declaring
// 50000×50000 pixels, 10 GB to decode — is refused with an error saying
// what is too big, instead of trapping ("unreachable").
package imagebounds

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
)

const (
	// MaxPixels bounds the output's area: its raster is one allocation of
	// 4 bytes a pixel, 64 MiB at most.
	MaxPixels = 4096 * 4096
	// MemBudget bounds the memory one resize needs at once: the decoded
	// source, the output raster and the scaler's intermediate rows (32
	// bytes for each output column of each source row). The guest's memory
	// must hold that, the object and the encoded output.
	MemBudget = 128 << 20
	// HeapLimit is the Go heap's soft limit (debug.SetMemoryLimit) the
	// samples set: the garbage of an earlier call of the same instance is
	// collected before the heap grows past it, rather than when it has
	// doubled.
	HeapLimit = 192 << 20
)

// CheckOutput refuses an output of w×h pixels past MaxPixels.
func CheckOutput(w, h int) error {
	if w*h > MaxPixels {
		return fmt.Errorf("an output of %dx%d is %d pixels, more than the limit of %d (4096x4096): ask for fewer", w, h, w*h, MaxPixels)
	}
	return nil
}

// ErrNotImage wraps the header's decoding error: the data is no image of
// a registered format.
type ErrNotImage struct{ Err error }

func (e *ErrNotImage) Error() string { return e.Err.Error() }

// Check reads the image header in data (named what in errors) and refuses
// an image with no pixels, or one whose resize to w×h needs more than
// MemBudget.
func Check(what string, data []byte, w, h int) error {
	cfg, kind, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return &ErrNotImage{err}
	}
	if cfg.Width < 1 || cfg.Height < 1 {
		return fmt.Errorf("%s is a %dx%d image, with no pixels", what, cfg.Width, cfg.Height)
	}
	need := resizeBytes(cfg.Width, cfg.Height, bytesPerPixel(cfg.ColorModel, kind == "jpeg" && jpegProgressive(data)), w, h)
	if need > MemBudget {
		return fmt.Errorf("resizing %s, a %dx%d image, to %dx%d needs about %.0f MiB, more than the limit of %d MiB: ask for a smaller output or give a smaller image",
			what, cfg.Width, cfg.Height, w, h, need/(1<<20), MemBudget>>20)
	}
	return nil
}

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
