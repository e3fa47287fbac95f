package wasm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// goPanicStderr is what a Go guest's runtime writes to stderr when its init
// (or an export) panics: the panic line, a blank line, then the goroutine's
// frames, two lines each. The panic line is the one a reader needs.
const goPanicStderr = "panic: aios: tool a registered twice\n\ngoroutine 1 [running]:\n" +
	"github.com/aios-host/aios-host/guest/go.add(...)\n\t/src/guest/go/sdk.go:180\n" +
	"github.com/aios-host/aios-host/guest/go.Handle(...)\n\t/src/guest/go/sdk.go:173\n" +
	"main.init.0()\n\t/tmp/g/main.go:8 +0x41\n"

// stderrThenTrap is a module whose export `where` writes goPanicStderr to
// stderr and traps, as a panicking Go guest does.
func stderrThenTrap(where string) string {
	data, packed := watData(100, goPanicStderr)
	n := uint32(packed)
	body := func(name string) string {
		if name == where {
			return `(drop (call $w (i32.const 2) (i32.const 0) (i32.const 1) (i32.const 16))) unreachable`
		}
		return ""
	}
	reg := `(i64.const 0)`
	if where == "aios_register" {
		reg = body(where) + ` (i64.const 0)`
	}
	return `(module
		(import "wasi_snapshot_preview1" "fd_write" (func $w (param i32 i32 i32 i32) (result i32)))
		(memory (export "memory") 1)
		` + data + `
		(data (i32.const 0) "\64\00\00\00` + le32(n) + `")
		(func (export "_initialize") ` + body("_initialize") + `)
		(func (export "aios_alloc") (param i32) (result i32) (i32.const 1024))
		(func (export "aios_register") (result i64) ` + reg + `)
		(func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`
}

func le32(n uint32) string {
	return fmt.Sprintf("\\%02x\\%02x\\%02x\\%02x", n&0xff, n>>8&0xff, n>>16&0xff, n>>24)
}

// A Go guest that panics in init or in aios_register (a duplicate tool, a
// schema the SDK cannot encode) must get a load error that quotes the panic
// itself: the stderr tail kept only the last frames (the panic line was
// pushed out by the stack), and a trap in aios_register quoted nothing.
func TestLoadErrorQuotesGuestPanic(t *testing.T) {
	testLoadErrorQuotesGuestPanic(t, newTestLoader(t, Config{}, nil))
}

func testLoadErrorQuotesGuestPanic(t *testing.T, l abi.Loader) {
	for _, where := range []string{"_initialize", "aios_register"} {
		t.Run(where, func(t *testing.T) {
			path := writeFile(t, "g.wasm", mustWAT(t, stderrThenTrap(where)))
			_, err := l.Load(context.Background(), abi.Source{Path: path})
			if err == nil {
				t.Fatal("loaded")
			}
			msg := err.Error()
			if !strings.Contains(msg, where) || !strings.Contains(msg, "the guest's stderr ended with: panic: aios: tool a registered twice") {
				t.Fatalf("the load error does not quote the guest's panic: %v", err)
			}
			if !strings.Contains(msg, "main.go:8") {
				t.Fatalf("the load error lost the panic's last frame: %v", err)
			}
			// The panic comes first, in the guest's words; the wasm stack
			// of the runtime's abort path is left out.
			if !strings.Contains(msg, where+": the guest panicked: aios: tool a registered twice (") &&
				!strings.Contains(msg, where+" trapped: the guest panicked: aios: tool a registered twice (") {
				t.Fatalf("the load error does not lead with the panic: %v", err)
			}
			if strings.Contains(msg, "wasm stack trace") || strings.Contains(msg, "\n") {
				t.Fatalf("the load error quotes the wasm stack: %q", msg)
			}
		})
	}
}

// A guest that names no provider id (a Go guest that never calls
// aios.Register, or sets only its Name) failed to load with `invalid
// provider id ""`, while a JS, TS or Python file without one is
// local.<file stem> (abi.LocalProviderID: "Every runtime uses it, so a
// file's id does not depend on its language").
func TestCoreModuleWithoutIDIsLocal(t *testing.T) {
	l := newTestLoader(t, Config{}, nil)
	dir := t.TempDir()
	path := filepath.Join(dir, "my_tools.wasm")
	if err := os.WriteFile(path, mustWAT(t, basicWAT("", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := l.Load(context.Background(), abi.Source{Path: path})
	if err != nil {
		t.Fatalf("a module without a provider id: %v", err)
	}
	defer p.Close()
	if id := p.Describe().Provider.ID; id != "local.my-tools" {
		t.Fatalf("provider id %q, want local.my-tools", id)
	}
	// A folder unit's module is named after the folder, as in JS and Python.
	unit := filepath.Join(dir, "word_count")
	if err := os.MkdirAll(unit, 0o755); err != nil {
		t.Fatal(err)
	}
	upath := filepath.Join(unit, "tool.wasm")
	if err := os.WriteFile(upath, mustWAT(t, basicWAT("", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	up, err := l.Load(context.Background(), abi.Source{Path: upath, Unit: unit})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	if id := up.Describe().Provider.ID; id != "local.word-count" {
		t.Fatalf("provider id %q, want local.word-count", id)
	}
	// A malformed id is still refused.
	if _, err := l.Load(context.Background(), abi.Source{Path: writeFile(t, "g.wasm", mustWAT(t, basicWAT("Org.Bad", 2)))}); err == nil || !strings.Contains(err.Error(), `invalid provider id "Org.Bad"`) {
		t.Fatalf("got %v", err)
	}
}
