package wasm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestLoaderChecksPinnedBytes: discovery hashes a signed provider's
// artifact, then the loader reads the file again. A file swapped between
// the two reads (and back before discovery's second hash) must not run:
// the loader checks the bytes it compiles against abi.Source.Pinned.
func TestLoaderChecksPinnedBytes(t *testing.T) {
	signed, err := os.ReadFile(builtGuest(t, "c-echo"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(builtGuest(t, "rust-echo"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "tool.wasm")
	if err := os.WriteFile(path, other, 0o644); err != nil { // swapped in after the hash
		t.Fatal(err)
	}
	sum := sha256.Sum256(signed)
	l := newTestLoader(t, Config{}, nil)
	src := abi.Source{Path: path, Trust: abi.Verified, Unit: dir,
		Pinned: map[string]string{path: hex.EncodeToString(sum[:])}}
	p, err := l.Load(context.Background(), src)
	if err == nil {
		p.Close()
		t.Fatal("the loader ran bytes whose digest is not the one the signed card pins")
	}
	if !strings.Contains(err.Error(), "pins") || !strings.Contains(err.Error(), path) {
		t.Fatalf("error should name the file and the pin: %v", err)
	}
	// The pinned bytes load.
	if err := os.WriteFile(path, signed, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err = l.Load(context.Background(), src)
	if err != nil {
		t.Fatalf("pinned bytes refused: %v", err)
	}
	p.Close()
}
