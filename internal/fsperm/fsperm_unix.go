//go:build unix

package fsperm

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Checkable says whether OwnedSafely can check a file here: on Unix.
const Checkable = true

// OwnedSafely checks path (whose os.Stat is st) and every folder on its
// way, as named and as resolved.
func OwnedSafely(path string, st os.FileInfo) error {
	if err := check(path, st); err != nil {
		return err
	}
	// Every folder on the way, as named and as resolved: a world-writable
	// folder anywhere on the path (a link in it repointed) would let
	// another account choose what is read.
	var dirs []string
	for _, p := range []string{path, realPath(path)} {
		for d := filepath.Dir(p); ; d = filepath.Dir(d) {
			dirs = append(dirs, d)
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	for _, dir := range dirs {
		dst, err := os.Stat(dir)
		if err != nil {
			return err
		}
		if err := check(dir, dst); err != nil {
			return err
		}
	}
	return nil
}

func check(p string, fi os.FileInfo) error {
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: owner unknown", p)
	}
	if sys.Uid != 0 && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("%s is owned by uid %d, neither root nor this user", p, sys.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0 {
		return fmt.Errorf("%s is writable by group or others", p)
	}
	return nil
}

func realPath(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}
