package aios

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// probePanicLine is the line of the panic in probePanicker.
var probePanicLine int

func probePanicker() {
	_, _, line, _ := runtime.Caller(0)
	probePanicLine = line + 2 // the panic, two lines down
	panic("disk on fire")
}

// TestPanicStackIsTheTools: a handler's panic gave every caller, in
// data.stack, debug.Stack(): the absolute path of each frame's file on the
// machine that built the guest (its author's home, its GOROOT: the build
// command of docs/abi.md has no -trimpath), and seven frames of the SDK
// and the Go runtime (runtime/debug.Stack, the SDK's recover, panic, its
// HandleFunc wrapper, run, serve, aios_call) around the tool's own. A
// native Go tool's panic gives the frames from the panicking function on,
// at most 12, each file named by its package path and base name, and the
// panic value as data.panic; the Go guest SDK now gives the same.
func TestPanicStackIsTheTools(t *testing.T) {
	probeTool(t, "probe-panics", func() {
		HandleFunc(Tool{Name: "probe-panics"}, func(c *Call, in map[string]any) (any, error) {
			probePanicker()
			return nil, nil
		})
	})
	_, terr := serveResult(t, "probe-panics", nil)
	if terr == nil || terr.Code != ProviderCrashed || !strings.Contains(terr.Message, "probe-panics panicked: disk on fire") {
		t.Fatalf("%+v, want ProviderCrashed with the panic", terr)
	}
	data, _ := terr.Data.(map[string]any)
	stack, _ := data["stack"].(string)
	if data["panic"] != "disk on fire" {
		t.Errorf("data.panic is %#v, want the panic value", data["panic"])
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stack, wd) || strings.Contains(stack, filepath.Dir(wd)) || strings.Contains(stack, runtime.GOROOT()) {
		t.Errorf("the stack names the build machine's folders (%s, %s):\n%s", wd, runtime.GOROOT(), stack)
	}
	first, _, _ := strings.Cut(stack, "\n\t")
	if first != "github.com/aios-host/aios-host/guest/go.probePanicker" {
		t.Errorf("the stack starts with %q, want the panicking function:\n%s", first, stack)
	}
	want := "\tgithub.com/aios-host/aios-host/guest/go/panicstack_edges_test.go:" + strconv.Itoa(probePanicLine) + "\n"
	if !strings.Contains(stack, want) {
		t.Errorf("the stack does not name the panic's line as %q:\n%s", want, stack)
	}
	for _, sdk := range []string{"runtime/debug", "guest/go.run", "guest/go.serve", "guest/go.HandleFunc", "runtime.gopanic", "panic("} {
		if strings.Contains(stack, sdk) {
			t.Errorf("the stack holds %s, a frame of the SDK or the runtime, not of the tool:\n%s", sdk, stack)
		}
	}
	if !strings.Contains(stack, "guest/go.TestPanicStackIsTheTools.func1.1\n") {
		t.Errorf("the stack lacks the handler's frame:\n%s", stack)
	}
}
