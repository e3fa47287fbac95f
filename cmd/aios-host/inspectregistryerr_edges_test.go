package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectRegistryErrorNamesFile: every error of `inspect` began with
// the file it read ("g.wasm: tools[0]: invalid tool name …") but those of
// the registry's check, a latency class, a version or a schema the host
// would refuse, which named only the provider and the tool ("provider
// org.x, tool a: unknown latency class …"), so a script inspecting several
// files could not tell which one failed. They name the file first too.
func TestInspectRegistryErrorNamesFile(t *testing.T) {
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		t.Fatalf("wat2wasm not found: install wabt (scripts/deps.sh)")
	}
	reg := `{"format":1,"provider":{"id":"org.probe.inspecterr"},"tools":[{"name":"a","latency_class":"quick"}]}`
	var hex strings.Builder
	for i := 0; i < len(reg); i++ {
		fmt.Fprintf(&hex, "\\%02x", reg[i])
	}
	wat := fmt.Sprintf(`(module
  (memory (export "memory") 1)
  (data (i32.const 1024) "%s")
  (func (export "aios_alloc") (param i32) (result i32) (i32.const 16384))
  (func (export "aios_register") (result i64) (i64.const %d))
  (func (export "aios_call") (param i32 i32) (result i64) (i64.const 0)))`, hex.String(), uint64(1024)<<32|uint64(len(reg)))
	dir := t.TempDir()
	src, mod := filepath.Join(dir, "e.wat"), filepath.Join(dir, "e.wasm")
	if err := os.WriteFile(src, []byte(wat), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("wat2wasm", src, "-o", mod).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v\n%s", err, out)
	}
	e := newEnv(t)
	code, _, errs := e.run("", "inspect", mod)
	if want := mod + `: provider org.probe.inspecterr, tool a: unknown latency class "quick"`; code != exitFail || !strings.Contains(errs, want) {
		t.Errorf("inspect: exit %d, stderr:\n%s\nwant %q", code, errs, want)
	}
}
