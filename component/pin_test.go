package component

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

// TestComponentLoaderChecksPinnedBytes: a signed component's file
// swapped after discovery hashed it (and before the loader reads it) must
// not run: the loader checks the bytes it compiles against the pins.
func TestComponentLoaderChecksPinnedBytes(t *testing.T) {
	signed, other := sample(t, "hello"), sample(t, "kitchen")
	dir := t.TempDir()
	path := filepath.Join(dir, "tool.wasm")
	if err := os.WriteFile(path, other, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(signed)
	l := NewLoader(Options{CacheDir: testCacheDir()})
	src := abi.Source{Path: path, Trust: abi.Verified, Unit: dir,
		Pinned: map[string]string{path: hex.EncodeToString(sum[:])}}
	p, err := l.Load(context.Background(), src)
	if err == nil {
		p.Close()
		t.Fatal("the component loader ran bytes whose digest is not the one the signed card pins")
	}
	if !strings.Contains(err.Error(), "pins") || !strings.Contains(err.Error(), path) {
		t.Fatalf("error should name the file and the pin: %v", err)
	}
	if err := os.WriteFile(path, signed, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err = l.Load(context.Background(), src)
	if err != nil {
		t.Fatalf("pinned bytes refused: %v", err)
	}
	p.Close()
}
