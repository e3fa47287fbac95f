//go:build unix

package sealed

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// writeEntry writes an entry as wazero does: a new file renamed into place.
func writeEntry(t *testing.T, p, content string) {
	t.Helper()
	tmp := p + ".1.tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

// checkWhile runs CheckWazero(dir) and, once it waits for the
// compilations in progress, during(); it returns what CheckWazero removed.
func checkWhile(t *testing.T, dir string, during func()) []string {
	t.Helper()
	waiting := make(chan struct{})
	onWait = func(string) { close(waiting) }
	t.Cleanup(func() { onWait = nil })
	done := make(chan []string, 1)
	go func() { done <- CheckWazero(dir) }()
	select {
	case <-waiting:
	case r := <-done:
		t.Fatalf("CheckWazero did not wait for the compilation in progress; removed %v", r)
	}
	during()
	return <-done
}

// TestSealRaceInProcess: CheckWazero (another loader's, in this
// process) removed as "damaged (or not sealed)" an entry that a
// compilation in progress had just written and not sealed yet. It now
// waits for that compilation to seal it, and keeps it; an entry cut in
// place (which looks just as unsealed and recent) is still removed, and the
// compilation's SealWazero does not bless it meanwhile.
func TestSealRaceInProcess(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "wazero-v1-amd64-linux")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	cut, fresh := filepath.Join(sub, "aa"), filepath.Join(sub, "bb")
	writeEntry(t, cut, "WAZEVO entry to be cut")
	SealWazero(dir)
	if removed := CheckWazero(dir); len(removed) != 0 {
		t.Fatalf("removed %v", removed)
	}
	if err := os.WriteFile(cut, []byte("WAZEVO en"), 0o600); err != nil { // cut in place
		t.Fatal(err)
	}
	end := BeginWazero(dir)
	writeEntry(t, fresh, "WAZEVO fresh entry")
	removed := checkWhile(t, dir, func() {
		SealWazero(dir)
		end()
	})
	if !slices.Equal(removed, []string{cut}) {
		t.Fatalf("removed %v, want only the cut entry %s", removed, cut)
	}
	if b, err := ReadFile(fresh, []byte("bb")); err != nil || string(b) != "WAZEVO fresh entry" {
		t.Fatalf("the fresh entry: %q, %v", b, err)
	}
}

// TestSealRaceOtherProcess: the same with the compilation in another
// process (a compiler process, another host on the same cache), which
// holds dir/wazero.lock shared while it compiles and seals: a second open
// file description stands for it here.
func TestSealRaceOtherProcess(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "wazero-v1-amd64-linux")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "wazero.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		t.Skip("no flock:", err)
	}
	fresh, old := filepath.Join(sub, "cc"), filepath.Join(sub, "dd")
	writeEntry(t, old, "WAZEVO unsealed, from nobody")
	writeEntry(t, fresh, "WAZEVO fresh entry")
	removed := checkWhile(t, dir, func() {
		SealWazero(dir) // as the other process would (sealing both)
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil {
			t.Error(err)
		}
	})
	if len(removed) != 0 {
		t.Fatalf("removed %v while the other process sealed them", removed)
	}
	if _, err := ReadFile(fresh, []byte("cc")); err != nil {
		t.Fatal(err)
	}
}

// TestSealRaceBoundedWait: a compilation that never ends (a hung
// process holding the lock) holds CheckWazero for wazeroWait at most; the
// unsealed entries are then removed all the same (never run unchecked).
func TestSealRaceBoundedWait(t *testing.T) {
	defer func(d time.Duration) { wazeroWait = d }(wazeroWait)
	wazeroWait = 50 * time.Millisecond
	dir := t.TempDir()
	sub := filepath.Join(dir, "wazero-v1-amd64-linux")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	end := BeginWazero(dir)
	defer end()
	p := filepath.Join(sub, "ee")
	writeEntry(t, p, "WAZEVO never sealed")
	done := make(chan []string, 1)
	go func() { done <- CheckWazero(dir) }()
	select {
	case removed := <-done:
		if !slices.Equal(removed, []string{p}) {
			t.Fatalf("removed %v, want %s", removed, p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("CheckWazero waited past wazeroWait")
	}
}

// TestSealRaceSingleCheck: two first loads of a process (two
// loaders, or a loader and a component) checked the same cache at once,
// each reading and hashing every entry: twice the work (seconds for a
// large cache). The second check now waits for the first and finds the
// entries checked.
func TestSealRaceSingleCheck(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "wazero-v1-amd64-linux")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	const n = 8
	for i := range n {
		name := fmt.Sprintf("e%d", i)
		if err := WriteFile(filepath.Join(sub, name), []byte("WAZEVO "+name), []byte(name)); err != nil {
			t.Fatal(err)
		}
	}
	var reads atomic.Int64
	var once sync.Once
	second := make(chan []string, 1)
	onRead = func(string) {
		reads.Add(1)
		once.Do(func() {
			// The first check is under way: a second one starts.
			go func() { second <- CheckWazero(dir) }()
			select { // before the fix it ends here at once (no assert on time)
			case r := <-second:
				second <- r
			case <-time.After(300 * time.Millisecond):
			}
		})
	}
	defer func() { onRead = nil }()
	if removed := CheckWazero(dir); len(removed) != 0 {
		t.Fatalf("removed %v", removed)
	}
	if removed := <-second; len(removed) != 0 {
		t.Fatalf("the second check removed %v", removed)
	}
	if got := reads.Load(); got != n {
		t.Fatalf("%d entries read for %d entries", got, n)
	}
}
