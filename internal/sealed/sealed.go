// Package sealed stores compiled code in a cache file with a digest of its
// contents and of the key it was made from (the source module's digest),
// so that a corrupted file, or one moved to another entry's name, is
// refused instead of run. wasmtime checks a serialized module's header,
// not its machine code: a flipped byte in the code section of a .cwasm
// would be executed (and crash the host), and a valid .cwasm of another
// module would run as this one.
package sealed

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/aios-host/aios-host/internal/fsperm"
)

// trailer marks a sealed file; it follows the SHA-256 of the contents.
const trailer = "aios-sealed-v2\n"

// ErrCorrupt is returned by Open for a file whose digest does not match.
var ErrCorrupt = errors.New("cache file is corrupt or not this entry's (its seal does not match)")

// digest is the seal of data made from key.
func digest(data, key []byte) [sha256.Size]byte {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(key)))
	h.Write(n[:])
	h.Write(key)
	h.Write(data)
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// Seal returns data followed by its seal for key and the trailer.
func Seal(data, key []byte) []byte {
	sum := digest(data, key)
	out := make([]byte, 0, len(data)+len(sum)+len(trailer))
	out = append(out, data...)
	out = append(out, sum[:]...)
	return append(out, trailer...)
}

// Open returns the contents of a sealed file's bytes b made from key, or
// ErrCorrupt.
func Open(b, key []byte) ([]byte, error) {
	n := len(b) - sha256.Size - len(trailer)
	if n < 0 || !bytes.HasSuffix(b, []byte(trailer)) {
		return nil, ErrCorrupt
	}
	data := b[:n]
	sum := digest(data, key)
	if !bytes.Equal(sum[:], b[n:n+sha256.Size]) {
		return nil, ErrCorrupt
	}
	return data, nil
}

// ReadFile reads and opens the sealed file at path, made from key. Only a
// regular file is read: a FIFO put at path is refused at once (it held the
// load that read it, and the loader's lock, forever).
func ReadFile(path string, key []byte) ([]byte, error) {
	f, err := fsperm.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	data, err := Open(b, key)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// WriteFile seals data made from key into path atomically (a temporary
// file of its own, renamed), creating the folder.
func WriteFile(path string, data, key []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := f.Write(Seal(data, key))
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
