package component

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 128, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The seed's image-tools component (Go guest): the tool-params record is the
// input schema, result<tool-result, string> gives tool-result or a
// ProviderError, and the image really is resized through aios:sdk/spaces.
func TestImageTools(t *testing.T) {
	p := load(t, "imagetools")
	reg := p.Describe()
	if len(reg.Tools) != 1 || reg.Tools[0].Name != "resize" {
		t.Fatalf("tools %+v", reg.Tools)
	}
	params := reg.Tools[0].Parameters["properties"].(map[string]any)["params"].(map[string]any)
	props := params["properties"].(map[string]any)
	if params["additionalProperties"] != false || props["width"].(map[string]any)["type"] != "integer" || props["object-id"].(map[string]any)["type"] != "string" {
		t.Fatalf("tool-params schema %v", params)
	}
	env := &fakeEnv{}
	in, err := env.SpaceWrite(t.Context(), "images", testPNG(t, 64, 48))
	if err != nil {
		t.Fatal(err)
	}
	got, err := call(t, p, env, "resize", map[string]any{"params": map[string]any{"object-id": in.ID, "width": int64(16), "height": int64(12), "format": "png"}})
	if err != nil {
		t.Fatal(err)
	}
	res := got.(map[string]any)
	if res["original-size"] != int64(len(in.Data)) {
		t.Errorf("original-size %v, want %d", res["original-size"], len(in.Data))
	}
	out, err := env.SpaceRead(t.Context(), "", res["output-id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if res["resized-size"] != int64(len(out.Data)) {
		t.Errorf("resized-size %v, want %d", res["resized-size"], len(out.Data))
	}
	img, err := png.Decode(bytes.NewReader(out.Data))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 16 || b.Dy() != 12 {
		t.Fatalf("resized to %v, want 16x12", b)
	}
	// Failures: result's err string becomes a ProviderError.
	_, err = call(t, p, env, "resize", map[string]any{"params": map[string]any{"object-id": "sha256:missing", "width": int64(1), "height": int64(1), "format": "png"}})
	if te := abi.AsToolError(err, abi.Internal); te == nil || te.Code != abi.ProviderError {
		t.Fatalf("missing object: %v", err)
	}
	_, err = call(t, p, env, "resize", map[string]any{"params": map[string]any{"object-id": in.ID, "width": int64(1), "height": int64(1), "format": "tiff"}})
	if abi.CodeOf(err) != abi.ProviderError {
		t.Fatalf("bad format: %v", err)
	}
	_, err = call(t, p, env, "resize", map[string]any{"params": map[string]any{"object-id": in.ID, "width": int64(-1), "height": int64(1), "format": "png"}})
	if abi.CodeOf(err) != abi.InvalidParams {
		t.Fatalf("negative width: %v", err)
	}
}
