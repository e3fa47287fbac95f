//go:build unix

package wasm

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/sealed"
)

// TestProbeSealedEntryIsACacheHit guards the sealing of wazero's compile
// cache (no defect): the seal follows what wazero reads, and wazero must
// still take a sealed entry. Had it refused one (trailing bytes) it would
// compile the module again on every load, in silence, and write the entry
// anew (wazero writes a temporary file and renames it over the entry), and
// the host would seal it again: the cache would be a cost, not a saving.
// A second loader's load leaves the sealed entries untouched: the same
// file (inode), the same bytes.
func TestProbeSealedEntryIsACacheHit(t *testing.T) {
	path := buildWAT(t, basicWAT("org.test.sealhit", 2))
	dir := t.TempDir()
	l := newTestLoader(t, Config{CacheDir: dir}, nil)
	p := load(t, l, path)
	if _, err := call(p, newFakeEnv(p, 5), "const", map[string]any{}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	p.Close()
	type state struct {
		ino uint64
		b   []byte
	}
	before := map[string]state{}
	for _, e := range wazeroCacheEntries(t, dir) {
		b, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sealed.Open(b, []byte(filepath.Base(e))); err != nil {
			t.Fatalf("entry %s is not sealed after a load: %v", e, err)
		}
		fi, err := os.Stat(e)
		if err != nil {
			t.Fatal(err)
		}
		before[e] = state{fi.Sys().(*syscall.Stat_t).Ino, b}
	}
	l2 := newTestLoader(t, Config{CacheDir: dir}, nil)
	p2 := load(t, l2, path)
	if _, err := call(p2, newFakeEnv(p2, 5), "const", map[string]any{}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	after := wazeroCacheEntries(t, dir)
	if len(after) != len(before) {
		t.Fatalf("cache entries %d after the second load, %d before: %v", len(after), len(before), after)
	}
	for _, e := range after {
		s, ok := before[e]
		if !ok {
			t.Fatalf("new cache entry %s after the second load (a miss)", e)
		}
		fi, err := os.Stat(e)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(e)
		if fi.Sys().(*syscall.Stat_t).Ino != s.ino || !bytes.Equal(b, s.b) {
			t.Errorf("entry %s was written again by the second load: wazero did not take the sealed entry", e)
		}
	}
}
