package fsperm

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// SyncDir fsyncs the folder dir, so that a file created, renamed or
// removed in it stays so through a crash. Errors are ignored: some file
// systems cannot fsync a folder, and what was written in it is synced
// already.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// MkdirAll makes dir and the folders missing above it (os.MkdirAll), and
// calls sync (SyncDir, or a test's) on the parent of each folder it made,
// the deepest first: a file fsynced in a folder made here could otherwise
// be lost with the folder's own entry in a crash.
func MkdirAll(dir string, perm os.FileMode, sync func(dir string)) error {
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return nil
	}
	var made []string
	for d := filepath.Clean(dir); d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		made = append(made, d)
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		return err
	}
	for _, d := range made {
		sync(filepath.Dir(d))
	}
	return nil
}
