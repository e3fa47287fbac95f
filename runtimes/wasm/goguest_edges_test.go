package wasm

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// probeGoGuest builds the Go guest whose main.go is src, as an author
// builds one (docs/abi.md §7: GOOS=wasip1 GOARCH=wasm go build
// -buildmode=c-shared, no -trimpath), and returns its .wasm. Built once per
// source and SDK: kept beside the tests' compile cache, named by a hash of
// src and the SDK's files.
func probeGoGuest(t *testing.T, src string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a Go guest")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root := testutil.RepoRoot(t)
	h := sha256.New()
	h.Write([]byte(src))
	for _, pat := range []string{"guest/go/*.go", "guest/go/wire/*.go", "guest/go/shorthand/*.go"} {
		files, _ := filepath.Glob(filepath.Join(root, pat))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			h.Write(b)
		}
	}
	dir := filepath.Join(os.TempDir(), "aios-wasm-test", "probe-guests")
	out := filepath.Join(dir, hex.EncodeToString(h.Sum(nil))[:16]+".wasm")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	work := t.TempDir()
	mod := "module example.com/probe\n\ngo 1.26.0\n\nrequire github.com/aios-host/aios-host v0.0.0\n\nreplace github.com/aios-host/aios-host => " + root + "\n"
	for name, text := range map[string]string{"main.go": src, "go.mod": mod} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(work, "guest.wasm")
	build := exec.Command(goBin, "build", "-buildmode=c-shared", "-o", tmp, ".")
	build.Dir = work
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOFLAGS=-mod=mod")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	bin, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	part := out + ".part" + filepath.Base(work)
	if err := os.WriteFile(part, bin, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(part, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// probeGuestSrc is a Go guest written as an author would, with the tools
// the probe tests call.
const probeGuestSrc = `package main

import aios "github.com/aios-host/aios-host/guest/go"

func init() {
	aios.Register(aios.Provider{ID: "org.example.probe", Capabilities: []string{"CallTool(*)"}})
	aios.HandleFunc(aios.Tool{Name: "call-without-params"}, func(c *aios.Call, in struct{ Tool string }) (any, error) {
		return c.CallTool(in.Tool, nil)
	})
	aios.HandleFunc(aios.Tool{Name: "deadlock"}, func(c *aios.Call, in map[string]any) (any, error) {
		<-make(chan int) // nothing will send: the Go runtime's fatal error
		return nil, nil
	})
	aios.HandleFunc(aios.Tool{Name: "goroutine-panic"}, func(c *aios.Call, in map[string]any) (any, error) {
		done := make(chan bool)
		go func() { // a panic outside the handler's goroutine: no recover
			var m map[string]int
			m["fan-out"] = 1
			done <- true
		}()
		<-done
		return nil, nil
	})
}

func main() {}
`

// TestCallToolWithoutParams: a Go guest's c.CallTool("list", nil) —
// a tool that takes no params — sent "params": nil, which the host passed
// on as null: the called tool's {"type": "object"} schema refused it
// ("params of list violate its schema: at /: expected object, got null"),
// where a JS ctx.callTool('list'), a Python ctx.call_tool("list") and a
// component's call-tool send {}. A call_tool request whose params are
// absent or null now calls the tool with {}.
func TestCallToolWithoutParams(t *testing.T) {
	l := newTestLoader(t, Config{}, nil)
	p := load(t, l, probeGoGuest(t, probeGuestSrc))
	env := newFakeEnv(p, 4)
	var got []any
	env.tools = map[string]func(any) (any, error){
		"list": func(params any) (any, error) {
			got = append(got, params)
			return map[string]any{"ok": true}, nil
		},
	}
	v, err := call(p, env, "call-without-params", map[string]any{"tool": "list"}, 10*time.Second)
	if err != nil || !reflect.DeepEqual(v, map[string]any{"ok": true}) {
		t.Fatalf("%v %v", v, err)
	}
	if len(got) != 1 || !reflect.DeepEqual(got[0], map[string]any{}) {
		t.Fatalf("the called tool got params %#v, want {} as from the JS, Python and component runtimes", got)
	}
}

// TestGoFatalErrorSaysWhy: a Go guest that deadlocked in a handler,
// or whose goroutine panicked outside the handler's (no recover there),
// wrote the Go runtime's reason to stderr and trapped: the caller got
// "the guest trapped: wasm error: unreachable", naming nothing of why
// (load errors quote the guest's panic line). A call whose instance wrote
// a panic line to its stderr now quotes it; another instance's output,
// another call's, is never quoted.
func TestGoFatalErrorSaysWhy(t *testing.T) {
	l := newTestLoader(t, Config{}, nil)
	p := load(t, l, probeGoGuest(t, probeGuestSrc))
	env := newFakeEnv(p, 4)
	for tool, want := range map[string]string{
		"deadlock":        "fatal error: all goroutines are asleep - deadlock!",
		"goroutine-panic": "panic: assignment to entry in nil map",
	} {
		_, err := call(p, env, tool, map[string]any{}, 10*time.Second)
		if abi.CodeOf(err) != abi.ProviderCrashed || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want ProviderCrashed quoting %q", tool, err, want)
		}
	}
	// Two instances' lines interleaved in the provider's sink: each notes
	// only its own.
	sink := newLogSink(slog.New(slog.DiscardHandler), 1<<20, true)
	a, b := &instance{}, &instance{}
	wa, wb := instStderr{sink, &a, &lines{s: sink}}, instStderr{sink, &b, &lines{s: sink}}
	_, _ = wa.Write([]byte("fatal error: a's secret"))
	_, _ = wb.Write([]byte("panic: b's own\n"))
	_, _ = wa.Write([]byte(" ran out\n"))
	if a.panicLine != "fatal error: a's secret ran out" || b.panicLine != "panic: b's own" {
		t.Errorf("interleaved stderr: a noted %q, b %q", a.panicLine, b.panicLine)
	}
	// The next call's crash of another kind does not quote the last one's.
	_, err := call(p, env, "deadlock", map[string]any{}, 10*time.Second)
	if strings.Contains(err.Error(), "nil map") {
		t.Errorf("deadlock after goroutine-panic: %v quotes the earlier crash", err)
	}
}
