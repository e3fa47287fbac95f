// Command image-resize is the seed's WASM tool example made real: it reads
// a PNG or JPEG object from a Space, scales it to width×height with
// Catmull-Rom resampling (golang.org/x/image/draw) and writes the result as
// PNG or JPEG to the same space the input came from.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o image-resize.wasm .
package main

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"runtime/debug"

	aios "github.com/aios-host/aios-host/guest/go"
	"golang.org/x/image/draw"
)

type params struct {
	ObjectID string `json:"object_id"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Format   string `json:"format"`
}

type result struct {
	OutputID     string `json:"output_id"`
	OriginalSize int64  `json:"original_size"`
	ResizedSize  int64  `json:"resized_size"`
}

// maxSide bounds each side of the output, maxPixels its area (its raster
// is one allocation of 4 bytes a pixel, 64 MiB at most).
const (
	maxSide   = 8192
	maxPixels = 4096 * 4096
)

// memBudget bounds the memory one resize needs at once: the decoded
// source, the output raster (4 bytes a pixel) and the scaler's
// intermediate rows (32 bytes for each output column of each source row).
// The guest's linear memory (runtimes.wasm.memory_limit_pages, 256 MiB by
// default) must hold that, the object and the encoded output; past it the
// guest traps ("unreachable") instead of saying what was too big. The
// source's size is taken from its header, before any pixel is decoded: a
// 60-byte PNG can declare 50000×50000 pixels, 10 GB to decode.
const memBudget = 128 << 20

// heapLimit is the Go heap's soft limit (debug.SetMemoryLimit): with it
// the garbage of an earlier call of the same instance is collected before
// the heap grows past it, rather than when it has doubled.
const heapLimit = 192 << 20

// resizeBytes estimates what scaling a sw×sh source of bpp bytes a pixel
// to dw×dh takes (see memBudget), in floating point: a header may declare
// sides of 2^31-1, whose products overflow int64.
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

func init() {
	debug.SetMemoryLimit(heapLimit)
	aios.Register(aios.Provider{
		ID:          "org.aios.samples.image-tools",
		Name:        "Image tools (WASM)",
		Version:     "1.0.0",
		Description: "Image resizing in a sandboxed WebAssembly guest.",
		// The provider may touch any space; each call is limited further by
		// what its caller holds (grants are intersected per call).
		Capabilities: []string{"ReadSpace(*)", "WriteSpace(*)"},
	})
	aios.HandleFunc(aios.Tool{
		Name:         "image-resize",
		Description:  "Resize a PNG or JPEG image stored in a Space; the result is stored in the same space.",
		Version:      "1.0.0",
		Tags:         []string{"image", "resize", "png", "jpeg"},
		LatencyClass: "normal",
		Idempotent:   true,
		Examples:     []string{`{"object_id":"sha256:…","width":128,"height":128,"format":"png"}`},
		Parameters: aios.Schema(`{"type":"object","properties":{
			"object_id":{"type":"string","pattern":"^sha256:[0-9a-f]{64}$","description":"ObjectId of the source image"},
			"width":{"type":"integer","minimum":1,"maximum":8192},
			"height":{"type":"integer","minimum":1,"maximum":8192},
			"format":{"type":"string","enum":["png","jpeg"]}},
			"required":["object_id","width","height","format"],"additionalProperties":false}`),
		Returns: aios.Schema(`{"type":"object","properties":{
			"output_id":{"type":"string"},"original_size":{"type":"integer"},"resized_size":{"type":"integer"}},
			"required":["output_id","original_size","resized_size"]}`),
	}, resize)
}

func resize(c *aios.Call, p params) (result, error) {
	if p.Width < 1 || p.Height < 1 || p.Width > maxSide || p.Height > maxSide {
		return result{}, aios.Errorf(aios.InvalidParams, "width and height must be 1..%d, got %dx%d", maxSide, p.Width, p.Height)
	}
	if p.Width*p.Height > maxPixels {
		return result{}, aios.Errorf(aios.InvalidParams, "an output of %dx%d is %d pixels, more than the limit of %d (4096x4096): ask for fewer", p.Width, p.Height, p.Width*p.Height, maxPixels)
	}
	if p.Format != "png" && p.Format != "jpeg" {
		return result{}, aios.Errorf(aios.InvalidParams, "format must be png or jpeg, got %q", p.Format)
	}
	obj, err := c.SpaceRead("", p.ObjectID)
	if err != nil {
		return result{}, err
	}
	cfg, kind, err := image.DecodeConfig(bytes.NewReader(obj.Data))
	if err != nil {
		return result{}, aios.Errorf(aios.InvalidParams, "object %s is not a PNG or JPEG image: %v", p.ObjectID, err)
	}
	if cfg.Width < 1 || cfg.Height < 1 {
		return result{}, aios.Errorf(aios.InvalidParams, "object %s is a %dx%d image, with no pixels", p.ObjectID, cfg.Width, cfg.Height)
	}
	if need := resizeBytes(cfg.Width, cfg.Height, bytesPerPixel(cfg.ColorModel, kind == "jpeg" && jpegProgressive(obj.Data)), p.Width, p.Height); need > memBudget {
		return result{}, aios.Errorf(aios.InvalidParams, "resizing object %s, a %dx%d image, to %dx%d needs about %.0f MiB, more than the limit of %d MiB: ask for a smaller output or give a smaller image", p.ObjectID, cfg.Width, cfg.Height, p.Width, p.Height, need/(1<<20), memBudget>>20)
	}
	src, _, err := image.Decode(bytes.NewReader(obj.Data))
	if err != nil {
		return result{}, aios.Errorf(aios.InvalidParams, "object %s is not a PNG or JPEG image: %v", p.ObjectID, err)
	}
	dst := image.NewRGBA(image.Rect(0, 0, p.Width, p.Height))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
	var out bytes.Buffer
	if p.Format == "png" {
		err = png.Encode(&out, dst)
	} else {
		err = jpeg.Encode(&out, dst, &jpeg.Options{Quality: 90})
	}
	if err != nil {
		return result{}, aios.Errorf(aios.ProviderError, "encoding %s: %v", p.Format, err)
	}
	written, err := c.SpaceWrite(obj.Space, out.Bytes())
	if err != nil {
		return result{}, err
	}
	return result{OutputID: written.ID, OriginalSize: int64(len(obj.Data)), ResizedSize: int64(out.Len())}, nil
}

func main() {}
