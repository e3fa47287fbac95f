package python_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/aios-host/aios-host/runtimes/python"
)

const forkAtImportSrc = `import os
from aios_sdk import tool

child = os.fork() == 0  # the child goes on importing, as the parent does

@tool(name="ok")
def ok(params):
    return {"ok": True}

@tool
def whoami(params):
    return {"pid": os.getpid()}
`

// TestForkAtImportDoesNotRegisterTwice: a tool file that forked at import
// without exec (os.fork() at module level, the child left to go on) loaded,
// and then every call failed "ProviderCrashed: … was killed: protocol
// violation: the worker sent a "register" envelope": the child imported
// the rest of the file too and sent a second register on the worker's pipe,
// and each replacement did the same. The child exits once the import ends,
// as a child forked by a call does when it returns; the worker serves.
func TestForkAtImportDoesNotRegisterTwice(t *testing.T) {
	for _, wire := range []string{"msgpack", "json"} {
		t.Run(wire, func(t *testing.T) {
			rt := newRuntime(t, func(c *python.Config) { c.Wire = wire; c.PoolSize = 1 })
			h := newHost(t, rt)
			loadTool(t, h, "forkimport.py", forkAtImportSrc)
			first, err := call(h, "whoami", map[string]any{}, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 5; i++ {
				got, err := call(h, "whoami", map[string]any{}, 10*time.Second)
				if err != nil {
					t.Fatalf("whoami %d: %v", i, err)
				}
				if !reflect.DeepEqual(got, first) {
					t.Fatalf("whoami %d was answered by %v, not the worker %v", i, got, first)
				}
			}
			stillServes(t, h, "a fork at import")
		})
	}
}
