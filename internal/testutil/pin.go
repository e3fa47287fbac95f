package testutil

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// PinSwap checks a loader against a signed provider's file swapped after
// discovery hashed it (and back before its second hash): load is given
// the file, its folder and the pins (path → SHA-256 hex, as
// abi.Source.Pinned) and returns a close function or an error. Bytes
// other than signed's must be refused with an error naming the file and
// the pin; signed's must load.
func PinSwap(t testing.TB, signed, other []byte, load func(path, dir string, pins map[string]string) (func(), error)) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "tool.wasm")
	if err := os.WriteFile(path, other, 0o644); err != nil { // swapped in after the hash
		t.Fatal(err)
	}
	sum := sha256.Sum256(signed)
	pins := map[string]string{path: hex.EncodeToString(sum[:])}
	closeFn, err := load(path, dir, pins)
	if err == nil {
		closeFn()
		t.Fatal("the loader ran bytes whose digest is not the one the signed card pins")
	}
	if !strings.Contains(err.Error(), "pins") || !strings.Contains(err.Error(), path) {
		t.Fatalf("error should name the file and the pin: %v", err)
	}
	if err := os.WriteFile(path, signed, 0o644); err != nil {
		t.Fatal(err)
	}
	closeFn, err = load(path, dir, pins)
	if err != nil {
		t.Fatalf("pinned bytes refused: %v", err)
	}
	closeFn()
}
