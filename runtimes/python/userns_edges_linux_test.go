//go:build linux

package python_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// userns tries to make a user namespace every way a process can: unshare,
// clone with CLONE_NEWUSER, and clone3 (whose flags a seccomp filter
// cannot read), each in a forked child, as unshare refuses a process with
// threads.
const userns = `import ctypes, os, struct
from aios_sdk import tool

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER = 0x10000000
SIGCHLD = 17
NR = {"x86_64": (56, 435), "aarch64": (220, 435)}[os.uname().machine]

def in_child(fn):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            res = fn()
        except BaseException as e:
            res = repr(e)
        os.write(w, res.encode())
        os._exit(0)
    os.close(w)
    out = os.read(r, 1000).decode()
    os.close(r)
    os.waitpid(pid, 0)
    return out

def errno_of(rc):
    if rc == 0:
        os._exit(0)  # a clone's child
    return "ok" if rc > 0 else os.strerror(ctypes.get_errno())

def unshare():
    return "ok" if libc.unshare(CLONE_NEWUSER) == 0 else os.strerror(ctypes.get_errno())

def clone():
    rc = libc.syscall(NR[0], CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)
    if rc > 0:
        os.waitpid(rc, 0)
    return errno_of(rc)

def clone3():
    args = ctypes.create_string_buffer(struct.pack("QQQQQQQQ", CLONE_NEWUSER, 0, 0, 0, SIGCHLD, 0, 0, 0))
    rc = libc.syscall(NR[1], args, 64)
    if rc > 0:
        os.waitpid(rc, 0)
    return errno_of(rc)

@tool(name="userns")
def make_userns(params):
    return {"unshare": in_child(unshare), "clone": in_child(clone), "clone3": in_child(clone3),
            "fork": in_child(lambda: "ok")}
`

// TestNoUserNamespace: a tool could make a user namespace
// (unshare(CLONE_NEWUSER) succeeded), and in it hold every capability
// over new mount, network, PID, IPC and UTS namespaces: Landlock and the
// seccomp filter kept it from mounting or opening sockets, but the kernel
// code only a namespace's root reaches, the source of many a local
// privilege escalation, was open to it. The seccomp filter refuses
// CLONE_NEWUSER to unshare and clone (EPERM) and clone3 with ENOSYS (its
// flags are out of a filter's reach; libc falls back to clone).
func TestNoUserNamespace(t *testing.T) {
	rt := newRuntime(t, nil)
	path := writeTool(t, "userns.py", userns)
	p, err := rt.Load(context.Background(), abi.Source{Path: path, Unit: filepath.Dir(path)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if l := rt.Layers(); !l.Seccomp {
		t.Skipf("seccomp unavailable: %s", l.SeccompErr)
	}
	r := attempt(t, p, "userns", map[string]any{})
	if r["fork"] != "ok" {
		t.Fatalf("a forked child did not report: %v", r)
	}
	for k, want := range map[string]string{"unshare": "Operation not permitted", "clone": "Operation not permitted", "clone3": "Function not implemented"} {
		if s, _ := r[k].(string); !strings.Contains(s, want) {
			t.Errorf("%s(CLONE_NEWUSER): %q, want %q; all: %v", k, s, want, r)
		}
	}
}
