//go:build linux

package discovery

import (
	"os"
	"path/filepath"
	"testing"
)

// TestVersionCmdIntermediateDir: the "writable by nobody else" rule of
// version_command covers every folder on the path, as named and as
// resolved: a world-writable folder (not sticky) holding a symbolic link to
// /usr/bin is refused (a probe found it passed: any local account could
// repoint the link).
func TestVersionCmdIntermediateDir(t *testing.T) {
	exe, err := filepath.EvalSymlinks("/usr/bin/true")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil { // no sticky bit: anyone may rename or replace entries
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(exe), filepath.Join(open, "bin")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(open, "bin", filepath.Base(exe))
	if err := versionSafeExecutable(p); err == nil {
		t.Fatalf("%s (through the world-writable folder %s) passes versionSafeExecutable", p, open)
	}
}
