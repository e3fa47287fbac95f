//go:build linux

package python_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/aios-host/aios-host/abi"
)

// fdReader reads the start of every descriptor the worker holds.
const fdReader = `import os
from aios_sdk import tool

@tool(name="fds")
def fds(params):
    out = {}
    for fd in range(3, 1024):
        try:
            out[str(fd)] = os.pread(fd, 64, 0).decode(errors="replace")
        except OSError as e:
            if e.errno != 9:  # EBADF: not open
                out[str(fd)] = str(e)
    return out
`

// TestWorkerInheritsNoStrayFD: a descriptor the host inherited without
// close-on-exec (from the shell or program that started it) was inherited
// by every worker too, and a tool read the file it was open on, outside
// every Landlock rule (Landlock checks at open). Workers now get only the
// descriptors the host gives them.
func TestWorkerInheritsNoStrayFD(t *testing.T) {
	const secret = "inherited-host-secret"
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(path, unix.O_RDONLY, 0) // no O_CLOEXEC, as one inherited
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	rt := newRuntime(t, nil)
	tool := writeTool(t, "fds.py", fdReader)
	p, err := rt.Load(context.Background(), abi.Source{Path: tool, Unit: filepath.Dir(tool)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if rt.Layers().Disabled {
		t.Skip("sandbox disabled")
	}
	r := attempt(t, p, "fds", nil)
	for k, v := range r {
		if s, _ := v.(string); strings.Contains(s, secret) {
			t.Errorf("the worker's descriptor %s reads the host's file %s (the host's descriptor %d); all: %v", k, path, fd, r)
		}
	}
}
