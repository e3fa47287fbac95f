//go:build wasmtime

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

// TestWasmtimeLoaderChecksPinnedBytes is TestLoaderChecksPinnedBytes
// on the wasmtime engine.
func TestWasmtimeLoaderChecksPinnedBytes(t *testing.T) {
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
	if err := os.WriteFile(path, other, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(signed)
	l := newWasmtimeTestLoader(t, Config{})
	src := abi.Source{Path: path, Trust: abi.Verified, Unit: dir,
		Pinned: map[string]string{path: hex.EncodeToString(sum[:])}}
	p, err := l.Load(context.Background(), src)
	if err == nil {
		p.Close()
		t.Fatal("the wasmtime loader ran bytes whose digest is not the one the signed card pins")
	}
	if !strings.Contains(err.Error(), "pins") {
		t.Fatalf("error should name the pin: %v", err)
	}
}
