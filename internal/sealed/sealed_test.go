package sealed

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestRoundTripAndCorruption(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.cwasm")
	data := bytes.Repeat([]byte("machine code "), 1000)
	if err := WriteFile(path, data); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadFile: %v", err)
	}
	b, _ := os.ReadFile(path)
	for name, bad := range map[string][]byte{
		"flipped byte": append(append([]byte{}, b[:100]...), append([]byte{b[100] ^ 0xcc}, b[101:]...)...),
		"truncated":    b[:len(b)-5],
		"unsealed":     data,
		"empty":        nil,
	} {
		if _, err := Open(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

func FuzzOpen(f *testing.F) {
	f.Add(Seal([]byte("x")))
	f.Add([]byte(trailer))
	f.Fuzz(func(t *testing.T, b []byte) {
		data, err := Open(b)
		if err == nil && !bytes.Equal(Seal(data), b) {
			t.Fatalf("Open accepted %q, which Seal does not produce", b)
		}
	})
}
