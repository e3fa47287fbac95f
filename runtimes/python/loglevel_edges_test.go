package python_test

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
	"github.com/aios-host/aios-host/space"
)

// lockedBuffer is a bytes.Buffer a logger may write from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestFilteredLevelNotCounted: with the host's log level at warn, a
// tool's ctx.log info lines and its print()s (stderr, logged at info) are
// never shown, yet they spent the worker's 100 lines a second: a tool that
// logged 150 info lines had the warning after them dropped, and "python
// ctx.log lines suppressed" counted lines nobody would have seen. Lines
// the level filters out cost nothing.
func TestFilteredLevelNotCounted(t *testing.T) {
	var out lockedBuffer
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c := python.DefaultConfig()
	c.PoolSize = 1
	rt, err := python.New(c, log)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	st, err := space.Open(filepath.Join(cfg.Data, "spaces"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: cfg, Spaces: st, Loaders: []abi.Loader{rt}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	loadTool(t, h, "lv.py", `import sys
from aios_sdk import tool

@tool(name="lv")
def lv(params, ctx):
    for i in range(150):
        ctx.log("info", i)
        print("print", i, file=sys.stderr, flush=True)
    ctx.log("the warning", level="warning")
    return {"ok": True}
`)
	if _, err := call(h, "lv", map[string]any{}, 0); err != nil {
		t.Fatal(err)
	}
	var got string
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if got = out.String(); strings.Contains(got, "the warning") {
			break
		}
	}
	if !strings.Contains(got, "the warning") {
		t.Fatalf("a ctx.log warning after 150 info lines at level warn: not logged; log: %q", got)
	}
	if strings.Contains(got, "suppressed") {
		t.Fatalf("lines the level filters out were reported suppressed: %q", got)
	}
}

// TestStderrTaggedWithProvider: a tool's print()s (its stderr) were
// logged with the runtime, the file and the worker's pid, not the
// provider, unlike its ctx.log lines in a call and the output of WASM
// guests: a log of several providers did not say whose they were. Lines
// written once the provider has registered carry provider=<id>.
func TestStderrTaggedWithProvider(t *testing.T) {
	h, capt := newCapturingHost(t, nil)
	loadTool(t, h, "tagged.py", `import sys
from aios_sdk import tool

@tool(name="tagged")
def tagged(params, ctx):
    print("printed by tagged", file=sys.stderr, flush=True)
    return {"ok": True}
`)
	if _, err := call(h, "tagged", map[string]any{}, 0); err != nil {
		t.Fatal(err)
	}
	var got *logRecord
	for end := time.Now().Add(20 * time.Second); got == nil && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		capt.mu.Lock()
		for i := range *capt.recs {
			if r := (*capt.recs)[i]; r.msg == "python stderr" && r.attrs["line"] == "printed by tagged" {
				got = &r
			}
		}
		capt.mu.Unlock()
	}
	if got == nil {
		t.Fatal("the tool's print was not logged")
	}
	if p := got.attrs["provider"]; p == "" || !strings.Contains(p, "tagged") {
		t.Fatalf("the tool's print logged with %v; want provider=<its id>", got.attrs)
	}
}
