//go:build linux

package python_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/aios-host/aios-host/abi"
)

// ipcReader attaches a System V shared memory segment by its id and
// reads it, and tries the other System V IPC objects.
const ipcReader = `import ctypes
from aios_sdk import tool

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p

def fail(n):
    return "%d: %s" % (n, __import__("os").strerror(ctypes.get_errno()))

@tool(name="ipc", parameters={"id": {"type": "integer"}, "size": {"type": "integer"}})
def ipc(params):
    out = {}
    addr = libc.shmat(params["id"], None, 0o10000)  # SHM_RDONLY
    if addr is None or addr == ctypes.c_void_p(-1).value:
        out["shmat"] = fail(-1)
    else:
        out["shmat"] = ctypes.string_at(addr, params["size"]).decode(errors="replace")
    buf = ctypes.create_string_buffer(256)
    out["shmctl"] = fail(libc.shmctl(params["id"], 2, buf))  # IPC_STAT
    # IPC_PRIVATE, IPC_CREAT; what is made is removed again (IPC_RMID).
    for name, make, ctl in (("shmget", lambda: libc.shmget(0, 4096, 0o1600), lambda i: libc.shmctl(i, 0, None)),
                            ("msgget", lambda: libc.msgget(0, 0o1600), lambda i: libc.msgctl(i, 0, None)),
                            ("semget", lambda: libc.semget(0, 1, 0o1600), lambda i: libc.semctl(i, 0, 0))):
        n = make()
        out[name] = fail(n)
        if n >= 0:
            ctl(n)
    return out
`

// TestNoSysVIPC: System V shared memory, message queues and semaphores
// are not files, so Landlock does not cover them, and a worker shares
// the host's IPC namespace and runs as the host's user: a tool attached a
// segment the host's user made (mode 0600) and read it. The seccomp
// filter refuses the System V IPC calls.
func TestNoSysVIPC(t *testing.T) {
	const secret = "host-secret-in-shared-memory"
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600)
	if err != nil {
		t.Skipf("no System V shared memory: %v", err)
	}
	defer func() { _, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil) }()
	mem, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	copy(mem, secret)
	defer func() { _ = unix.SysvShmDetach(mem) }()

	rt := newRuntime(t, nil)
	path := writeTool(t, "ipc.py", ipcReader)
	p, err := rt.Load(context.Background(), abi.Source{Path: path, Unit: filepath.Dir(path)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if l := rt.Layers(); l.Disabled || !l.Seccomp {
		t.Skipf("seccomp unavailable: %s", l.SeccompErr)
	}
	r := attempt(t, p, "ipc", map[string]any{"id": int64(id), "size": int64(len(secret))})
	for _, k := range []string{"shmat", "shmctl", "shmget", "msgget", "semget"} {
		if s, _ := r[k].(string); !strings.Contains(s, "Operation not permitted") {
			t.Errorf("%s: %q, want Operation not permitted; all: %v", k, s, r)
		}
	}
}
