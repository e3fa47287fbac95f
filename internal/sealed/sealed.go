// Package sealed stores compiled code in a cache file with a digest of its
// contents, so that a corrupted file is refused instead of run. wasmtime
// checks a serialized module's header, not its machine code: a flipped byte
// in the code section of a .cwasm would be executed (and crash the host).
package sealed

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// trailer marks a sealed file; it follows the SHA-256 of the contents.
const trailer = "aios-sealed-v1\n"

// ErrCorrupt is returned by Open for a file whose digest does not match.
var ErrCorrupt = errors.New("cache file is corrupt (its digest does not match its contents)")

// Seal returns data followed by its SHA-256 and the trailer.
func Seal(data []byte) []byte {
	sum := sha256.Sum256(data)
	out := make([]byte, 0, len(data)+len(sum)+len(trailer))
	out = append(out, data...)
	out = append(out, sum[:]...)
	return append(out, trailer...)
}

// Open returns the contents of a sealed file's bytes b, or ErrCorrupt.
func Open(b []byte) ([]byte, error) {
	n := len(b) - sha256.Size - len(trailer)
	if n < 0 || !bytes.HasSuffix(b, []byte(trailer)) {
		return nil, ErrCorrupt
	}
	data := b[:n]
	sum := sha256.Sum256(data)
	if !bytes.Equal(sum[:], b[n:n+sha256.Size]) {
		return nil, ErrCorrupt
	}
	return data, nil
}

// ReadFile reads and opens the sealed file at path.
func ReadFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	data, err := Open(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// WriteFile seals data into path atomically (a temporary file of its own,
// renamed), creating the folder.
func WriteFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := f.Write(Seal(data))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		_ = os.Remove(f.Name())
	}
	return werr
}
