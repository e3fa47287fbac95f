package space

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// recordSyncs replaces syncDir for the test and returns the folders it
// was asked to sync.
func recordSyncs(t *testing.T) func() []string {
	t.Helper()
	var mu sync.Mutex
	var dirs []string
	old := syncDir
	syncDir = func(dir string) {
		mu.Lock()
		dirs = append(dirs, dir)
		mu.Unlock()
		old(dir)
	}
	t.Cleanup(func() { syncDir = old })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), dirs...)
	}
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Delete removed the object, then its fan-out folder when empty, and then
// fsynced that fan-out folder: gone, so nothing was synced, and the
// removal was not durable (a crash could bring the object back). It syncs
// the fan-out folder the object was removed from and, when that folder
// was removed too, the space's folder that held it.
func TestDeleteSyncsParent(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.Put("docs", []byte("only object"))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := s.objectPath("docs", id)
	fan, spaceDir := filepath.Dir(p), filepath.Dir(filepath.Dir(p))
	syncs := recordSyncs(t)
	if err := s.Delete("docs", id); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fan); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the emptied fan-out folder is still there: %v", err)
	}
	if got := syncs(); !has(got, spaceDir) {
		t.Fatalf("Delete removed %s but did not fsync its parent %s (synced: %q)", fan, spaceDir, got)
	}

	// With another object in the fan-out folder, that folder is synced.
	a, err := s.Put("docs", []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	var b string
	for i := 0; ; i++ { // another object of the same fan-out folder
		data := []byte("b" + strings.Repeat("x", i))
		if id := ID(data); id[len(IDPrefix):len(IDPrefix)+2] == a[len(IDPrefix):len(IDPrefix)+2] {
			if b, err = s.Put("docs", data); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	syncs = recordSyncs(t)
	if err := s.Delete("docs", b); err != nil {
		t.Fatal(err)
	}
	pa, _ := s.objectPath("docs", a)
	if got := syncs(); !has(got, filepath.Dir(pa)) {
		t.Fatalf("Delete did not fsync the fan-out folder %s it removed the object from (synced: %q)", filepath.Dir(pa), got)
	}
}

// A Put that met a full disk (ENOSPC) or a full quota of the file system
// (EDQUOT) failed as "space "x": write object: write /data/spaces/.tmp/put-…:
// no space left on device", mapped to Internal: a caller could not tell it
// from a host bug, and the host's file path reached the tool. It is ErrFull
// (TooLarge, as the min_free_bytes reserve) and names the space and the
// size, not the path; the temporary file is removed.
func TestPutDiskFullIsErrFull(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT} {
		for _, step := range []string{"write", "sync"} {
			root := t.TempDir()
			s, err := Open(root)
			if err != nil {
				t.Fatal(err)
			}
			old := writeTemp
			writeTemp = func(f *os.File, data []byte) error {
				if step == "sync" {
					if _, err := f.Write(data); err != nil {
						return err
					}
				}
				return &fs.PathError{Op: step, Path: f.Name(), Err: errno}
			}
			_, err = s.Put("docs", []byte("some content"))
			writeTemp = old
			if !errors.Is(err, ErrFull) {
				t.Fatalf("%v at %s: got %v, want ErrFull", errno, step, err)
			}
			msg := err.Error()
			if strings.Contains(msg, root) || strings.Contains(msg, "put-") || !strings.Contains(msg, `space "docs"`) {
				t.Fatalf("%v at %s: the message should name the space, not the host's path: %q", errno, step, msg)
			}
			if ents, _ := os.ReadDir(filepath.Join(root, tmpDir)); len(ents) != 0 {
				t.Fatalf("%v at %s: temporary files left: %v", errno, step, ents)
			}
		}
	}

	// The reserve's refusal named the store's root too.
	root := t.TempDir()
	s, err := Open(root, WithMinFreeBytes(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put("docs", []byte("x")); !errors.Is(err, ErrFull) || strings.Contains(err.Error(), root) {
		t.Fatalf("min_free_bytes refusal: %v (want ErrFull, without %s)", err, root)
	}
}

// Put fsynced the fan-out folder it renamed the object into, but not the
// folders it had just made for it (the space's, the fan-out one): their
// own entries were not durable, so a crash could lose the object of a new
// space or fan-out folder that Put had reported stored. It syncs the
// parent of each folder it made.
func TestPutSyncsNewFolders(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	syncs := recordSyncs(t)
	id, err := s.Put("fresh", []byte("first object of a new space"))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := s.objectPath("fresh", id)
	fan := filepath.Dir(p)
	got := syncs()
	for _, want := range []string{fan, filepath.Dir(fan), root} {
		if !has(got, want) {
			t.Fatalf("Put into a new space did not fsync %s (synced: %q)", want, got)
		}
	}
	// Into an existing fan-out folder, that folder alone.
	syncs = recordSyncs(t)
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put("fresh", []byte("first object of a new space")); err != nil {
		t.Fatal(err)
	}
	if got := syncs(); len(got) != 1 || got[0] != fan {
		t.Fatalf("Put into an existing fan-out folder synced %q, want %q alone", got, fan)
	}
}

// The store's errors carried the host's paths ("space "docs": object
// sha256:…: open /srv/aios/spaces/docs/ab/…: not a directory", "is a
// folder" with the absolute path), and they reach the tool (Internal):
// a tool learned where the host keeps its data. They name the space and
// the object, and a path only relative to the store (SPACE/xx/…).
func TestStoreErrorsNameNoHostPath(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("blocked")
	id := ID(data)
	p, _ := s.objectPath("docs", id)
	// A file where the fan-out folder should be: every reach fails.
	if err := os.MkdirAll(filepath.Dir(filepath.Dir(p)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Dir(p), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		if strings.Contains(err.Error(), root) {
			t.Errorf("%s: the message names the host's path: %q", what, err)
		}
		if !strings.Contains(err.Error(), `"docs"`) {
			t.Errorf("%s: the message does not name the space: %q", what, err)
		}
	}
	_, err = s.Get("docs", id)
	check("Get", err)
	_, err = s.Size("docs", id)
	check("Size", err)
	_, err = s.Has("docs", id)
	check("Has", err)
	check("Delete", s.Delete("docs", id))
	_, err = s.Put("docs", data)
	check("Put", err)

	// A folder where the object should be: Put says where, in the store.
	if err := os.Remove(filepath.Dir(p)); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err = s.Put("docs", data)
	check("Put onto a folder", err)
	if rel, _ := filepath.Rel(root, p); err == nil || !strings.Contains(err.Error(), rel) {
		t.Errorf("Put onto a folder: the message should say where in the store: %v (want %s)", err, rel)
	}

	// A file where the space's folder should be.
	if err := os.WriteFile(filepath.Join(root, "flat"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = s.List("flat")
	if err == nil || strings.Contains(err.Error(), root) || !strings.Contains(err.Error(), `"flat"`) {
		t.Errorf("List: %v", err)
	}

	// The store's root gone, a file in its place.
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(root, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Spaces(); err == nil || strings.Contains(err.Error(), root) {
		t.Errorf("Spaces: %v", err)
	}
}

// Open made the store's root (a new data folder) without fsyncing its
// parent: the objects Put fsynced under it could be lost with the root's
// entry in a crash. Each folder Open makes is synced in its parent.
func TestOpenSyncsRootItMade(t *testing.T) {
	syncs := recordSyncs(t)
	top := t.TempDir()
	root := filepath.Join(top, "data", "spaces")
	if _, err := Open(root); err != nil {
		t.Fatal(err)
	}
	got := syncs()
	for _, want := range []string{top, filepath.Join(top, "data")} {
		if !has(got, want) {
			t.Fatalf("Open did not fsync %s (synced: %q)", want, got)
		}
	}
}
