package component

import (
	"context"
	"encoding/binary"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestComponentCacheDamagedHeader: the component runtime's compile
// cache (<data>/cache/component) is a wazero file cache, whose CRC covers
// an entry's machine code but not the function offsets before it: an
// offset damaged between two runs made the next host run the component's
// code from the wrong address and die (SIGSEGV). A damaged entry is now
// removed, with a warning, and compiled again.
func TestComponentCacheDamagedHeader(t *testing.T) {
	dir := t.TempDir()
	p, err := New(context.Background(), sample(t, "hello"), "hello.wasm", "", Options{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	entries, _ := filepath.Glob(filepath.Join(dir, "wazero-*", "*"))
	if len(entries) == 0 {
		t.Fatalf("no cache entries in %s", dir)
	}
	for _, e := range entries {
		b, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		vlen := int(b[6])
		n := int(binary.LittleEndian.Uint32(b[7+vlen:]))
		for i := range n {
			o := 11 + vlen + 8*i
			binary.LittleEndian.PutUint64(b[o:], binary.LittleEndian.Uint64(b[o:])+3)
		}
		if err := os.WriteFile(e, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var logs strings.Builder
	p, err = New(context.Background(), sample(t, "hello"), "hello.wasm", "", Options{CacheDir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatalf("load with a damaged cache: %v", err)
	}
	defer p.Close()
	if got, err := call(t, p, &fakeEnv{}, "add", map[string]any{"a": int64(40), "b": int64(2)}); err != nil || got != int64(42) {
		t.Fatalf("add = %v, %v", got, err)
	}
	if !strings.Contains(logs.String(), "compiled again") {
		t.Errorf("no warning about the damaged entries; log:\n%s", logs.String())
	}
}
