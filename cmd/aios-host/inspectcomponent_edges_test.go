package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectComponentRegistrable: a component's aios-provider section
// may override a tool's schemas and capability_required. inspect printed
// such a component's tools as fine, exit 0, when its override held a schema
// the host refuses ({"type": "objekt"}) or a capability that does not parse
// ("ReadSpace(docs"), while every load of the file failed with "provider
// not registered". inspect checked what it printed for core modules and
// scripts (TestInspectInvalidSchema) but not for components. Both are
// `jco parse` of
//
//	(component
//	  (core module $m
//	    (func (export "f") (result i32) i32.const 1)
//	    (@custom "aios-provider" "{\"id\": …, \"tools\": {\"f\": {OVERRIDE}}}"))
//	  (core instance $i (instantiate $m))
//	  (func $f (result u32) (canon lift (core func $i "f")))
//	  (export "f" (func $f)))
func TestInspectComponentRegistrable(t *testing.T) {
	for _, c := range []struct{ name, hex, want string }{
		{"schema", "0061736d0d000100018a010061736d010000000105016000017f03020100070501016600000a0601040041010b005b0d61696f732d70726f76696465727b226964223a226f72672e6578616d706c652e626164736368656d61222c22746f6f6c73223a7b2266223a7b22706172616d6574657273223a7b2274797065223a226f626a656b74227d7d7d7d0009046e616d650002016d0204010000000705014000007906070100000100016608060100000000000b070100016601000000260e636f6d706f6e656e742d6e616d65010600110100016d010600120100016901050101000166",
			"schema of f@1.0.0 parameters is invalid"},
		{"capability", "0061736d0d0001000191010061736d010000000105016000017f03020100070501016600000a0601040041010b00620d61696f732d70726f76696465727b226964223a226f72672e6578616d706c652e626164636170222c22746f6f6c73223a7b2266223a7b226361706162696c6974795f7265717569726564223a5b2252656164537061636528646f6373225d7d7d7d0009046e616d650002016d0204010000000705014000007906070100000100016608060100000000000b070100016601000000260e636f6d706f6e656e742d6e616d65010600110100016d010600120100016901050101000166",
			"capability_required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := hex.DecodeString(c.hex)
			if err != nil {
				t.Fatal(err)
			}
			f := filepath.Join(t.TempDir(), "bad.wasm")
			if err := os.WriteFile(f, b, 0o644); err != nil {
				t.Fatal(err)
			}
			e := newEnv(t)
			for _, args := range [][]string{{"inspect", f}, {"inspect", "--json", f}} {
				code, out, errs := e.run("", args...)
				if code != exitFail || !strings.Contains(errs, c.want) || !strings.Contains(errs, "tool f") {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d naming tool f and %q", strings.Join(args, " "), code, out, errs, exitFail, c.want)
				}
			}
		})
	}
}
