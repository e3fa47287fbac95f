package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildWATModule assembles wat with wat2wasm into a temporary name.wasm
// and returns its path.
func buildWATModule(t *testing.T, name, wat string) string {
	t.Helper()
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		t.Fatalf("wat2wasm not found: install wabt (scripts/deps.sh)")
	}
	dir := t.TempDir()
	src, mod := filepath.Join(dir, name+".wat"), filepath.Join(dir, name+".wasm")
	if err := os.WriteFile(src, []byte(wat), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("wat2wasm", src, "-o", mod).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v\n%s", err, out)
	}
	return mod
}

// registerOnlyModule is a core module whose aios_register returns the
// JSON ToolRegister reg and whose aios_call answers nothing: for what the
// host makes of a registration (inspect, load errors).
func registerOnlyModule(t *testing.T, name, reg string) string {
	t.Helper()
	var hex strings.Builder
	for i := 0; i < len(reg); i++ {
		fmt.Fprintf(&hex, "\\%02x", reg[i])
	}
	return buildWATModule(t, name, fmt.Sprintf(`(module
  (memory (export "memory") 1)
  (data (i32.const 1024) "%s")
  (func (export "aios_alloc") (param i32) (result i32) (i32.const 16384))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`, hex.String(), uint64(1024)<<32|uint64(len(reg))))
}
