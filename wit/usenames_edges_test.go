package wit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUseUnknownTypeNamesInterface: `use dep:x/t@1.0.0.{idd}` of a type the
// interface does not define said "type `idd` not defined in interface",
// and `use t.{idd}` in the same package "name `idd` does not exist": which
// interface was looked in, and what it does define, was left to the
// reader. Both name the interface and the types it defines.
func TestUseUnknownTypeNamesInterface(t *testing.T) {
	dir := t.TempDir()
	for p, s := range map[string]string{
		"m.wit":      "package app:m;\ninterface i {\n  use dep:x/t@1.0.0.{idd};\n}\n",
		"deps/x.wit": "package dep:x@1.0.0;\ninterface t { type id = u8; enum kind { a } f: func(); }\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Parse(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "m.wit:3:22: type `idd` not defined in interface dep:x/t@1.0.0 (its types: id, kind)") {
		t.Errorf("cross-package use: %v", err)
	}
	_, err = ParseSource("l.wit", "package app:m;\ninterface local { type size = u32; record point { x: u32 } f: func(); }\ninterface i {\n  use local.{sise};\n}\n", Options{})
	if err == nil || !strings.Contains(err.Error(), "l.wit:4:14: type `sise` not defined in interface app:m/local (its types: point, size)") {
		t.Errorf("same-package use: %v", err)
	}
}
