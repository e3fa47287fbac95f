//go:build wasmtime

package wasmtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestLoadErrorOneLine: a component wasmtime could not compile or
// instantiate was refused in wasmtime's own text: with RUST_BACKTRACE set
// (a Rust developer's shell) "memory minimum size of 2 pages exceeds
// memory limits" was followed by a blank line, "Stack backtrace:" and ten
// lines of "<unknown>" frames, a trap in a start function began "error
// while executing at wasm backtrace:" with the reason lines below, and a
// compile error put its reasons under "Caused by:"; the host log and run's
// summary of files not loaded carried all of it. Each is one line now.
func TestLoadErrorOneLine(t *testing.T) {
	t.Setenv("RUST_BACKTRACE", "1")
	l := newLoader(t, Options{MemoryLimitPages: 1})
	path := sample(t, "hello")
	_, err := l.Load(context.Background(), abi.Source{Path: path})
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), path) ||
		!strings.Contains(err.Error(), "its memory starts at 2 pages") { // the host's check first (TestMemoryAboveLimitNamesKey)
		t.Errorf("load of a component whose memory starts above the limit: %q, want one line naming the file and the reason", err)
	}
	// A start function that traps (its memory grows past the limit).
	p := &Provider{l: l, name: "over.wasm", pool: make(chan *instance, 1)}
	defer p.free()
	if p.comp, err = l.compile(memoriesComponent(1, 2)); err != nil {
		t.Fatalf("compile: %v", err)
	}
	if p.linker, err = newLinker(l.engine); err != nil {
		t.Fatal(err)
	}
	if inst, err := p.newInstance(context.Background(), time.Now().Add(loadStartTimeout)); err == nil {
		inst.free()
		t.Fatal("a start function that traps instantiated")
	} else if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("instance whose start function traps: %q, want one line with the trap", err)
	}
	// A component whose module section is cut.
	if _, err := l.compile([]byte("\x00asm\x0d\x00\x01\x00\x01\x05")); err == nil || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "out of bounds") {
		t.Errorf("compile of a cut component: %q, want one line with the reason", err)
	}
}
