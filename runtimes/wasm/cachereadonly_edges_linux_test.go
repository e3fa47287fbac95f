package wasm

import (
	"bytes"
	"encoding/binary"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDamagedEntryInReadOnlyCache: a compile cache folder the host
// cannot write (a cache prepared by another account, a read-only mount;
// here the immutable attribute, which binds root too) holding a damaged
// entry: the check found the entry's seal broken but could not remove it,
// said nothing, and wazero then read it, running code from a wrong
// address (the host died of SIGSEGV). A damaged entry that stays must keep
// the loader off the file cache: the module is compiled in memory, with a
// warning naming the entry and why.
func TestDamagedEntryInReadOnlyCache(t *testing.T) {
	path := buildWAT(t, basicWAT("org.test.rocache", 2))
	dir := t.TempDir()
	l := newTestLoader(t, Config{CacheDir: dir}, nil)
	p := load(t, l, path)
	if _, err := call(p, newFakeEnv(p, 5), "const", map[string]any{}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	p.Close()
	l.Close()
	for _, e := range wazeroCacheEntries(t, dir) {
		b, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		// Every function offset moved by 3 bytes (wazero's CRC covers
		// the machine code, not the offsets before it).
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
	subs, _ := filepath.Glob(filepath.Join(dir, "wazero-*"))
	if len(subs) == 0 {
		t.Fatal("no wazero cache folder")
	}
	for _, s := range subs {
		if out, err := exec.Command("chattr", "+i", s).CombinedOutput(); err != nil {
			t.Skipf("cannot make %s immutable (needs chattr, CAP_LINUX_IMMUTABLE and a file system with the attribute): %v %s", s, err, out)
		}
		t.Cleanup(func() { _ = exec.Command("chattr", "-i", s).Run() })
	}
	var logBuf bytes.Buffer
	l2 := newTestLoader(t, Config{CacheDir: dir}, slog.New(slog.NewTextHandler(&logBuf, nil)))
	p2 := load(t, l2, path)
	v, err := call(p2, newFakeEnv(p2, 5), "const", map[string]any{}, 5*time.Second)
	if err != nil || v.(map[string]any)["ok"] != true {
		t.Fatalf("call with a damaged entry the host cannot remove: %v %v", v, err)
	}
	if !strings.Contains(logBuf.String(), "cannot be removed") {
		t.Errorf("no warning about the damaged entry that stays:\n%s", logBuf.String())
	}
	t.Log(logBuf.String())
}
