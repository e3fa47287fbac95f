//go:build wasmtime

package wasm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestWasmtimeCompileErrorOneLine: a module wasmtime could not compile
// was refused with wasmtime's own error text, several lines ("failed to
// parse WebAssembly module", a blank line, "Caused by:", the reason, and
// with RUST_BACKTRACE set some thirty lines of "<unknown>" frames) where
// wazero says one line, so the host log and run's summary of files not
// loaded carried a backtrace and put the reason on a line of its own. It
// is one line now, with the reason.
func TestWasmtimeCompileErrorOneLine(t *testing.T) {
	t.Setenv("RUST_BACKTRACE", "1") // as a Rust developer's shell has it
	path := filepath.Join(t.TempDir(), "cut.wasm")
	// A type section that says 5 bytes and ends.
	if err := os.WriteFile(path, []byte("\x00asm\x01\x00\x00\x00\x01\x05"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := newWasmtimeTestLoader(t, Config{CacheDir: t.TempDir()})
	p, err := l.Load(context.Background(), abi.Source{Path: path})
	if err == nil {
		p.Close()
		t.Fatal("a cut module loaded")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, path) || !strings.Contains(msg, "unexpected end-of-file") {
		t.Errorf("load of a cut module: %q, want one line naming the file and the reason (unexpected end-of-file)", msg)
	}
}
