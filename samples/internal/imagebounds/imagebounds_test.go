package imagebounds

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/internal/testutil"
)

func TestCheck(t *testing.T) {
	var small bytes.Buffer
	if err := png.Encode(&small, image.NewRGBA(image.Rect(0, 0, 64, 48))); err != nil {
		t.Fatal(err)
	}
	var jp bytes.Buffer
	if err := jpeg.Encode(&jp, image.NewRGBA(image.Rect(0, 0, 64, 48)), nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		w, h int
		want string // "" for no error
	}{
		{"small png", small.Bytes(), 128, 128, ""},
		{"small jpeg", jp.Bytes(), 4096, 4096, ""},
		{"png bomb", testutil.PNGClaiming(50000, 50000), 16, 16, "a 50000x50000 image, to 16x16 needs about"},
		{"declared sides of 2^31-1", testutil.PNGClaiming(1<<31-1, 1<<31-1), 16, 16, "dimension overflow"},
		{"no pixels", testutil.PNGClaiming(0, 10), 16, 16, "non-positive dimension"},
		{"not an image", []byte("GIF? no"), 16, 16, "unknown format"},
	} {
		err := Check("object x", tc.data, tc.w, tc.h)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := CheckOutput(4096, 4097); err == nil || !strings.Contains(err.Error(), "more than the limit of 16777216") {
		t.Errorf("CheckOutput 4096x4097: %v", err)
	}
	if !jpegProgressive([]byte{0xff, 0xd8, 0xff, 0xc2, 0, 2}) || jpegProgressive(jp.Bytes()) {
		t.Error("jpegProgressive: a SOF2 frame is progressive, a baseline encoding is not")
	}
}

// FuzzCheck: no header, however malformed, panics the check (it runs in a
// guest, where a panic traps).
func FuzzCheck(f *testing.F) {
	f.Add(testutil.PNGClaiming(100, 100))
	f.Add([]byte{0xff, 0xd8, 0xff, 0xc2, 0, 2})
	f.Add([]byte{0xff, 0xd8, 0xff, 0xe0, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = Check("fuzz", data, 100, 100)
		_ = jpegProgressive(data)
	})
}
