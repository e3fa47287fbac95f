//go:build linux

package python_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/python"
)

// hostSignaller sends signal 0 (a check, nothing delivered) to the host,
// the worker's parent.
const hostSignaller = `import os
from aios_sdk import tool

@tool(name="sig")
def sig(params):
    try:
        os.kill(os.getppid(), 0)
        return {"ok": True, "ppid": os.getppid(), "error": ""}
    except OSError as e:
        return {"ok": False, "ppid": os.getppid(), "error": str(e)}
`

// TestSignalsToHostWarned: Landlock scopes signals from ABI 6 on; before
// it, only a PID namespace keeps the host out of a worker's reach. On a
// host without one (not root: the common desktop) and a kernel before
// Linux 6.12, a tool could signal, so kill, the host and every process of
// its user, and the host logged every layer as on ("landlock=v5 ...
// pidns=off" with only the PID namespace's warning, "processes a python
// tool forks may outlive its worker"). It now warns of that too.
func TestSignalsToHostWarned(t *testing.T) {
	rt := newRuntime(t, nil)
	python.NoPIDNamespace(rt)
	v, err := python.OlderLandlock(rt, 5)
	if err != nil {
		t.Skip(err)
	}
	if l := rt.Layers(); l.Disabled || v == 0 {
		t.Skipf("no Landlock here: %s", l.LandlockErr)
	}
	path := writeTool(t, "sig.py", hostSignaller)
	p, err := rt.Load(context.Background(), abi.Source{Path: path, Unit: filepath.Dir(path)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r := attempt(t, p, "sig", nil)
	if r["ok"] != true {
		t.Skipf("the worker cannot signal the host here (%v): nothing to warn of", r)
	}
	d := strings.Join(rt.Layers().Degraded(), "\n")
	if !strings.Contains(d, "can signal") || !strings.Contains(d, "the host") {
		t.Errorf("a worker signals the host (Landlock v%d, no PID namespace), but the host does not warn of it; it says:\n%s", v, d)
	}
}
