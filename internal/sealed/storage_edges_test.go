//go:build unix

package sealed

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWazeroSealing: SealWazero seals a new entry in place (wazero
// ignores what follows its data) and CheckWazero keeps it; an entry
// damaged after its sealing is removed by CheckWazero and not sealed again
// (blessed) by SealWazero; an entry with no seal (from before sealing) is
// removed, so its module is compiled again.
func TestWazeroSealing(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "wazero-v1-amd64-linux")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	good, bad, old := filepath.Join(sub, "aa"), filepath.Join(sub, "bb"), filepath.Join(sub, "cc")
	for _, p := range []string{good, bad} {
		if err := os.WriteFile(p, []byte("WAZEVO entry "+p), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	SealWazero(dir)
	b, _ := os.ReadFile(bad)
	b[3] ^= 1
	if err := os.WriteFile(bad, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte("WAZEVO unsealed"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A tmp file being written by wazero is left alone.
	tmp := filepath.Join(sub, "dd.123.tmp")
	if err := os.WriteFile(tmp, []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	SealWazero(dir) // seals old (new to it), must not bless bad
	if got, _ := os.ReadFile(bad); !bytes.Equal(got, b) {
		t.Fatal("SealWazero sealed a damaged entry again")
	}
	removed := CheckWazero(dir)
	if len(removed) != 1 || removed[0] != bad {
		t.Fatalf("removed %v, want only %s", removed, bad)
	}
	for _, p := range []string{good, old, tmp} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	data, err := ReadFile(good, []byte("aa"))
	if err != nil || string(data) != "WAZEVO entry "+good {
		t.Fatalf("the sealed entry holds %q, %v", data, err)
	}
	// Unsealed and not sealed since (written before sealing existed).
	old2 := filepath.Join(sub, "ee")
	if err := os.WriteFile(old2, []byte("WAZEVO older"), 0o600); err != nil {
		t.Fatal(err)
	}
	if removed := CheckWazero(dir); len(removed) != 1 || removed[0] != old2 {
		t.Fatalf("removed %v, want %s", removed, old2)
	}
	// An entry pruned away is forgotten: the memory of checked entries
	// stays as large as the cache.
	if err := os.Remove(good); err != nil {
		t.Fatal(err)
	}
	CheckWazero(dir)
	wazeroSeen.Lock()
	_, kept := wazeroSeen.m[good]
	wazeroSeen.Unlock()
	if kept {
		t.Error("a removed entry is still remembered")
	}
}

// TestReadFileFIFO: a cache entry replaced by a FIFO (the wasmtime
// .cwasm files, the instrumented modules) made ReadFile wait in open(2)
// for a writer forever, and the load with it. It is now refused at once
// as not a regular file, so the module is compiled again.
func TestReadFileFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.cwasm")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadFile(p, []byte("k"))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("ReadFile of a FIFO: %v", err)
		}
	case <-time.After(5 * time.Second):
		if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
		t.Fatal("ReadFile of a FIFO hung")
	}
}
