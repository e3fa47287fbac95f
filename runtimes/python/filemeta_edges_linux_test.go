//go:build linux

package python_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/aios-host/aios-host/abi"
)

// metaWriter changes the mode, times, extended attributes and owner of a
// file it names (by path) and of its own file (by a read-only fd).
const metaWriter = `import os
from aios_sdk import tool

def _try(f):
    try:
        f()
        return "done"
    except OSError as e:
        return "refused: " + os.strerror(e.errno)

@tool(name="meta")
def meta(params):
    p = params["path"]
    fd = os.open(__file__, os.O_RDONLY)  # its own file, which it may read
    try:
        return {
            "chmod": _try(lambda: os.chmod(p, 0o777)),
            "fchmod": _try(lambda: os.chmod(fd, 0o777)),
            "utime": _try(lambda: os.utime(p, (0, 0))),
            "futime": _try(lambda: os.utime(fd, (0, 0))),
            "setxattr": _try(lambda: os.setxattr(p, "user.aios", b"1")),
            "removexattr": _try(lambda: os.removexattr(p, "user.keep")),
            "chown": _try(lambda: os.chown(p, os.getuid(), os.getgid())),
        }
    finally:
        os.close(fd)
`

// TestToolCannotChangeFileMetadata: Landlock governs reading and writing a
// file's contents and names, not its mode, times, extended attributes or
// owner, and a worker runs as the host's user: a tool (which "writes no
// file") made a file of the host's user outside its folder world-writable
// (chmod 0777, also on root's /etc/shadow when the host runs as root; its
// own read-only file through fchmod), set its times to 1970 and added and removed its extended attributes. The
// seccomp filter of Python workers, which have nothing writable, now
// refuses the chmod, chown, utime and xattr calls with EPERM; the file is
// as it was.
func TestToolCannotChangeFileMetadata(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	hasXattr := unix.Setxattr(victim, "user.keep", []byte("k"), 0) == nil
	before, err := os.Stat(victim)
	if err != nil {
		t.Fatal(err)
	}
	rt := newRuntime(t, nil)
	path := writeTool(t, "meta.py", metaWriter)
	p, err := rt.Load(context.Background(), abi.Source{Path: path, Unit: filepath.Dir(path)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if l := rt.Layers(); !l.Seccomp {
		t.Skipf("seccomp unavailable: %s", l.SeccompErr)
	}
	ownBefore, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	r := attempt(t, p, "meta", map[string]any{"path": victim})
	for k, v := range r {
		if s, _ := v.(string); !strings.Contains(s, "Operation not permitted") {
			t.Errorf("%s of a file outside the tool's folder: %q, want Operation not permitted; all: %v", k, s, r)
		}
	}
	if len(r) != 7 {
		t.Errorf("want 7 attempts: %v", r)
	}
	after, err := os.Stat(victim)
	if err != nil {
		t.Fatal(err)
	}
	if after.Mode() != before.Mode() {
		t.Errorf("the tool changed the file's mode from %v to %v", before.Mode(), after.Mode())
	}
	if !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the tool changed the file's time from %v to %v", before.ModTime().Format(time.RFC3339), after.ModTime().Format(time.RFC3339))
	}
	if ownAfter, err := os.Stat(path); err != nil || ownAfter.Mode() != ownBefore.Mode() || !ownAfter.ModTime().Equal(ownBefore.ModTime()) {
		t.Errorf("the tool changed its own file through a read-only fd: %v %v, was %v %v", ownAfter.Mode(), ownAfter.ModTime(), ownBefore.Mode(), ownBefore.ModTime())
	}
	if hasXattr {
		buf := make([]byte, 16)
		if _, err := unix.Getxattr(victim, "user.aios", buf); err == nil {
			t.Errorf("the tool added an extended attribute to the file")
		}
		if _, err := unix.Getxattr(victim, "user.keep", buf); err != nil {
			t.Errorf("the tool removed the file's extended attribute: %v", err)
		}
	}
}
