package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWitDepComponentHint: `aios-host wit DIR` whose deps/ held a
// component with code (deps/c.wasm, not a WIT package) failed naming
// deps/c.wasm, then sent the user to "'aios-host inspect DIR' prints a
// component's WIT": inspect of the folder, which inspect cannot read. The
// hint names the file at fault. The component is `jco parse` of (component
// (core module $m (func (export "f") (result i32) i32.const 1)) (core
// instance $i (instantiate $m)) (func $f (result u32) (canon lift (core
// func $i "f"))) (export "f" (func $f))).
func TestWitDepComponentHint(t *testing.T) {
	comp, err := hex.DecodeString("0061736d0d000100012d0061736d010000000105016000017f03020100070501016600000a0601040041010b0009046e616d650002016d0204010000000705014000007906070100000100016608060100000000000b070100016601000000260e636f6d706f6e656e742d6e616d65010600110100016d010600120100016901050101000166")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dep := filepath.Join(dir, "deps", "c.wasm")
	if err := os.MkdirAll(filepath.Dir(dep), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.wit"), []byte("package a:b;\ninterface i { use c:d/x.{t}; f: func(a: t); }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dep, comp, 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	code, _, errs := e.run("", "wit", dir)
	if code != exitFail || !strings.Contains(errs, "a component, not a WIT package") ||
		!strings.Contains(errs, "'aios-host inspect "+dep+"'") || strings.Contains(errs, "'aios-host inspect "+dir+"'") {
		t.Fatalf("wit DIR: exit %d, stderr %q; want exit %d, the hint naming %s", code, errs, exitFail, dep)
	}
	// The file itself given: the hint names it, as before.
	code, _, errs = e.run("", "wit", dep)
	if code != exitFail || !strings.Contains(errs, "'aios-host inspect "+dep+"'") {
		t.Fatalf("wit FILE: exit %d, stderr %q", code, errs)
	}
}
