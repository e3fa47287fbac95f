package python_test

import (
	"context"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// A tool that keeps a SQLite database in a file (sqlite3.connect("x.db"))
// failed "OperationalError: unable to open database file" (a new file) or
// "attempt to write a readonly database" (one of its folder), which read
// as a broken path or a file mode, where the sandbox lets a tool write no
// file. The message now says so, as a refused open does
// (TestFilePermissionErrorSaysSandbox).
func TestSQLiteFileSaysSandbox(t *testing.T) {
	rt := newRuntime(t, nil)
	if err := rt.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l := rt.Layers(); l.Disabled || l.Landlock == 0 {
		t.Skipf("no Landlock on this machine: %q", l.Degraded())
	}
	h := newHost(t, rt)
	loadTool(t, h, "db.py", `import os, sqlite3
from aios_sdk import tool

@tool
def ok(params):
    return {"ok": True}

@tool
def newdb(params):
    c = sqlite3.connect(os.path.join(os.path.dirname(__file__), "new.db"))
    c.execute("create table t(x)")

@tool
def memdb(params):
    c = sqlite3.connect(":memory:")
    c.execute("create table t(x)")
    return "ok"
`)
	_, err := call(h, "newdb", map[string]any{}, 30*time.Second)
	wantCode(t, err, abi.ProviderError, "OperationalError: unable to open database file (at db.py:10)",
		"the sandbox lets a tool read (and run) only files of its own folder", "write no file")
	if v, err := call(h, "memdb", map[string]any{}, 30*time.Second); err != nil || v != "ok" {
		t.Fatalf("an in-memory database: %v, %v", v, err)
	}
	stillServes(t, h, "sqlite refused")
}
