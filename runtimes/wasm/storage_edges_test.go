//go:build unix

package wasm

import (
	"bytes"
	"context"
	"encoding/binary"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// wazeroCacheEntries lists the entries of the wazero file cache in dir.
func wazeroCacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.Contains(p, string(filepath.Separator)+"wazero-") && !strings.HasSuffix(p, ".tmp") {
			out = append(out, p)
		}
		return nil
	})
	if len(out) == 0 {
		t.Fatalf("no wazero cache entries in %s", dir)
	}
	return out
}

// TestWazeroCacheDamagedHeader: wazero checks a CRC of a cache
// entry's machine code, not of the header before it. A damaged function
// offset (a bit flipped on the disk between two runs) made the next host
// run the module from the wrong address: the process died ("unexpected
// signal", SIGSEGV in guest code); a damaged function count made it
// allocate gigabytes; a cut entry. The loader now removes an entry whose
// seal does not hold, says so at Warn, and compiles the module again.
func TestWazeroCacheDamagedHeader(t *testing.T) {
	path := buildWAT(t, basicWAT("org.test.cachehdr", 2))
	for name, damage := range map[string]func(b []byte) []byte{
		"function offsets": func(b []byte) []byte {
			vlen := int(b[6])
			n := int(binary.LittleEndian.Uint32(b[7+vlen:]))
			for i := range n {
				o := 11 + vlen + 8*i
				binary.LittleEndian.PutUint64(b[o:], binary.LittleEndian.Uint64(b[o:])+3)
			}
			return b
		},
		"function count": func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[7+int(b[6]):], 0xfffffff0)
			return b
		},
		"cut":   func(b []byte) []byte { return b[:len(b)/2] },
		"empty": func([]byte) []byte { return nil },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			l := newTestLoader(t, Config{CacheDir: dir}, nil)
			p := load(t, l, path)
			if _, err := call(p, newFakeEnv(p, 5), "const", map[string]any{}, 5*time.Second); err != nil {
				t.Fatal(err)
			}
			p.Close()
			for _, e := range wazeroCacheEntries(t, dir) {
				b, err := os.ReadFile(e)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(e, damage(b), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var logBuf bytes.Buffer
			l2 := newTestLoader(t, Config{CacheDir: dir}, slog.New(slog.NewTextHandler(&logBuf, nil)))
			p2 := load(t, l2, path)
			v, err := call(p2, newFakeEnv(p2, 5), "const", map[string]any{}, 5*time.Second)
			if err != nil || v.(map[string]any)["ok"] != true {
				t.Fatalf("call after a damaged cache entry: %v %v", v, err)
			}
			if !strings.Contains(logBuf.String(), "compiled again") {
				t.Errorf("no warning about the damaged entry:\n%s", logBuf.String())
			}
			// The entry written again is whole: a third loader takes it
			// without a warning.
			var log3 bytes.Buffer
			l3 := newTestLoader(t, Config{CacheDir: dir}, slog.New(slog.NewTextHandler(&log3, nil)))
			p3 := load(t, l3, path)
			if _, err := call(p3, newFakeEnv(p3, 5), "const", map[string]any{}, 5*time.Second); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(log3.String(), "level=WARN") {
				t.Errorf("the cache written again is not taken:\n%s", log3.String())
			}
		})
	}
}

// TestWazeroCacheEntryFIFO: an entry of the compile cache replaced
// by a FIFO held wazero's open(2), and the load with it (and the loader's
// lock, so every later load), forever. Such an entry is now removed, with
// a warning, and the module compiled again.
func TestWazeroCacheEntryFIFO(t *testing.T) {
	path := buildWAT(t, basicWAT("org.test.cachefifo", 2))
	dir := t.TempDir()
	l := newTestLoader(t, Config{CacheDir: dir}, nil)
	p := load(t, l, path)
	p.Close()
	entries := wazeroCacheEntries(t, dir)
	for _, e := range entries {
		if err := os.Remove(e); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(e, 0o600); err != nil {
			t.Skip("no mkfifo:", err)
		}
	}
	var logBuf testutil.SyncBuffer
	l2 := newTestLoader(t, Config{CacheDir: dir}, slog.New(slog.NewTextHandler(&logBuf, nil)))
	done := make(chan error, 1)
	go func() {
		p, err := l2.Load(context.Background(), abi.Source{Path: path})
		if err == nil {
			_, err = call(p.(*Provider), newFakeEnv(p, 5), "const", map[string]any{}, 5*time.Second)
			p.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("load with a FIFO in the cache: %v", err)
		}
	case <-time.After(10 * time.Second):
		for _, e := range entries { // let the open return
			if f, err := os.OpenFile(e, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
		<-done
		t.Fatal("the load hung on a FIFO in the compile cache")
	}
	if !strings.Contains(logBuf.String(), "compiled again") {
		t.Errorf("no warning about the FIFO:\n%s", logBuf.String())
	}
}
