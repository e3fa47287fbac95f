package audit

import (
	"path/filepath"
	"sync"
	"testing"
)

// Open created the log file (the first start, or after the log was moved
// aside) without fsyncing its folder, so the file's entry was not durable:
// records fsynced into it could be lost with it in a crash, though Sync
// had returned. It fsyncs the folder when it made the file (rotation
// already did), and not when the file was there.
func TestOpenSyncsFolderOfNewLog(t *testing.T) {
	var mu sync.Mutex
	var synced []string
	old := syncDir
	syncDir = func(dir string) {
		mu.Lock()
		synced = append(synced, dir)
		mu.Unlock()
		old(dir)
	}
	t.Cleanup(func() { syncDir = old })
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	for round, want := range []int{1, 0} {
		mu.Lock()
		synced = nil
		mu.Unlock()
		w, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		n := 0
		for _, d := range synced {
			if d == dir {
				n++
			}
		}
		mu.Unlock()
		if n != want {
			t.Fatalf("round %d (file new: %v): the log's folder was fsynced %d times, want %d", round, round == 0, n, want)
		}
	}
}

// Open made the log's missing folders (a new data folder, the first
// audit-sessions/) without fsyncing their parents: the log's entry was
// synced in a folder whose own entry could be lost. Each made folder is
// synced in its parent.
func TestOpenSyncsFoldersItMade(t *testing.T) {
	var mu sync.Mutex
	var synced []string
	old := syncDir
	syncDir = func(dir string) {
		mu.Lock()
		synced = append(synced, dir)
		mu.Unlock()
		old(dir)
	}
	t.Cleanup(func() { syncDir = old })
	top := t.TempDir()
	path := filepath.Join(top, "data", "audit-sessions", "call.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{top, filepath.Join(top, "data"), filepath.Join(top, "data", "audit-sessions")} {
		found := false
		for _, d := range synced {
			found = found || d == want
		}
		if !found {
			t.Fatalf("%s was not fsynced (synced: %q)", want, synced)
		}
	}
}
