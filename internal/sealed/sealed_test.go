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
	key := []byte("module A")
	if err := WriteFile(path, data, key); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path, key)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadFile: %v", err)
	}
	// Another entry's file moved to this name.
	if _, err := ReadFile(path, []byte("module B")); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("ReadFile with another key: %v, want ErrCorrupt", err)
	}
	b, _ := os.ReadFile(path)
	for name, bad := range map[string][]byte{
		"flipped byte": append(append([]byte{}, b[:100]...), append([]byte{b[100] ^ 0xcc}, b[101:]...)...),
		"truncated":    b[:len(b)-5],
		"unsealed":     data,
		"empty":        nil,
	} {
		if _, err := Open(bad, key); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
	}
}

func FuzzOpen(f *testing.F) {
	f.Add(Seal([]byte("x"), []byte("k")))
	f.Add([]byte(trailer))
	f.Fuzz(func(t *testing.T, b []byte) {
		data, err := Open(b, []byte("k"))
		if err == nil && !bytes.Equal(Seal(data, []byte("k")), b) {
			t.Fatalf("Open accepted %q, which Seal does not produce", b)
		}
	})
}
