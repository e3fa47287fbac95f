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
	"image/jpeg"
	"image/png"
	"runtime/debug"

	aios "github.com/aios-host/aios-host/guest/go"
	"github.com/aios-host/aios-host/samples/internal/imagebounds"
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

// maxSide bounds each side of the output (imagebounds.MaxPixels its
// area).
const maxSide = 8192

func init() {
	debug.SetMemoryLimit(imagebounds.HeapLimit)
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
	if err := imagebounds.CheckOutput(p.Width, p.Height); err != nil {
		return result{}, aios.Errorf(aios.InvalidParams, "%v", err)
	}
	if p.Format != "png" && p.Format != "jpeg" {
		return result{}, aios.Errorf(aios.InvalidParams, "format must be png or jpeg, got %q", p.Format)
	}
	obj, err := c.SpaceRead("", p.ObjectID)
	if err != nil {
		return result{}, err
	}
	if err := imagebounds.Check("object "+p.ObjectID, obj.Data, p.Width, p.Height); err != nil {
		if ni, ok := err.(*imagebounds.ErrNotImage); ok {
			return result{}, aios.Errorf(aios.InvalidParams, "object %s is not a PNG or JPEG image: %v", p.ObjectID, ni.Err)
		}
		return result{}, aios.Errorf(aios.InvalidParams, "%v", err)
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
