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
	path := filepath.Join(t.TempDir(), "bad.wasm")
	// A type section whose one type has the form 0x61, not 0x60 (func):
	// its framing is sound, so the host's own check of the sections (a
	// module cut short, TestCutShortModuleSaysTruncated) passes it on.
	if err := os.WriteFile(path, []byte("\x00asm\x01\x00\x00\x00\x01\x04\x01\x61\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := newWasmtimeTestLoader(t, Config{CacheDir: t.TempDir()})
	p, err := l.Load(context.Background(), abi.Source{Path: path})
	if err == nil {
		p.Close()
		t.Fatal("a module with an invalid type loaded")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, path) || !strings.Contains(msg, "invalid leading byte (0x61)") {
		t.Errorf("load of a module with an invalid type: %q, want one line naming the file and the reason (invalid leading byte (0x61))", msg)
	}
}
