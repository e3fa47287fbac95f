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

// keyReader looks for a key of the host's user in the keyrings a process
// of that user reaches, and reads it.
const keyReader = `import ctypes, os
from aios_sdk import tool

libc = ctypes.CDLL(None, use_errno=True)
NR = {"x86_64": 250, "aarch64": 219}[os.uname().machine]

@tool(name="key")
def key(params):
    out = {}
    for ring, name in ((-4, "user"), (-3, "session"), (-5, "user-session")):
        kid = libc.syscall(NR, 10, ring, b"user", params["name"].encode(), 0)  # KEYCTL_SEARCH
        if kid < 0:
            out[name] = "search: " + os.strerror(ctypes.get_errno())
            continue
        buf = ctypes.create_string_buffer(100)
        n = libc.syscall(NR, 11, kid, buf, 100)  # KEYCTL_READ
        out[name] = buf.raw[:n].decode() if n >= 0 else "read: " + os.strerror(ctypes.get_errno())
    return out
`

// TestNoKeyring: the kernel's keyrings are not files, so Landlock
// does not cover them, and a worker runs as the host's user: a tool read a
// key the host's user holds in its user keyring (where a Kerberos ticket
// cache or a passphrase systemd cached for cryptsetup live) with
// keyctl(KEYCTL_SEARCH) and keyctl(KEYCTL_READ). The seccomp filter refuses
// keyctl, add_key and request_key.
func TestNoKeyring(t *testing.T) {
	const name = "aios-probe-keyring-secret"
	id, err := unix.AddKey("user", name, []byte("s3cret"), unix.KEY_SPEC_USER_KEYRING)
	if err != nil {
		t.Skipf("no user keyring to put a key in: %v", err)
	}
	defer func() { _, _ = unix.KeyctlInt(unix.KEYCTL_UNLINK, id, unix.KEY_SPEC_USER_KEYRING, 0, 0) }()
	rt := newRuntime(t, nil)
	path := writeTool(t, "key.py", keyReader)
	p, err := rt.Load(context.Background(), abi.Source{Path: path, Unit: filepath.Dir(path)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if l := rt.Layers(); !l.Seccomp {
		t.Skipf("seccomp unavailable: %s", l.SeccompErr)
	}
	r := attempt(t, p, "key", map[string]any{"name": name})
	for k, v := range r {
		if s, _ := v.(string); !strings.Contains(s, "Operation not permitted") {
			t.Errorf("keyring %s: %q, want Operation not permitted; all: %v", k, s, r)
		}
	}
	if len(r) != 3 {
		t.Errorf("want 3 keyrings tried: %v", r)
	}
}
