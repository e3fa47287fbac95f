package testutil

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/jpeg"
	"testing"
)

// Image bombs for the image samples' tests: tiny files whose headers
// declare sizes that would take gigabytes to decode.

// PNGClaiming is a PNG whose IHDR declares w×h 8-bit RGBA pixels, with a
// tiny IDAT: 60 bytes that ask a decoder for w*h*4 bytes.
func PNGClaiming(w, h uint32) []byte {
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

// JPEGClaiming is a real 16×16 baseline JPEG whose frame header says w×h.
func JPEGClaiming(t testing.TB, w, h uint16) []byte {
	t.Helper()
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

// ProgressiveJPEG is a JPEG of nComp components declaring w×h pixels with
// a progressive frame (SOF2) and one DC scan with no data: the decoder
// allocates the image and every block's coefficients at the scan's start.
func ProgressiveJPEG(w, h uint16, nComp int) []byte {
	b := []byte{0xff, 0xd8, 0xff, 0xc2, 0, byte(8 + 3*nComp), 8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), byte(nComp)}
	for i := 1; i <= nComp; i++ {
		b = append(b, byte(i), 0x11, 0)
	}
	b = append(b, 0xff, 0xda, 0, byte(6+2*nComp), byte(nComp))
	for i := 1; i <= nComp; i++ {
		b = append(b, byte(i), 0)
	}
	return append(b, 0, 0, 0, 0xff, 0xd9)
}
