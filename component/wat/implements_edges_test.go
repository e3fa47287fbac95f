package wat

import (
	"reflect"
	"strings"
	"testing"
)

// TestImportImplements: wasm-tools (wit-component 0.258) encodes a world's
// `import x: a:b/i;` as an import named "x" with the name attribute
// (implements "a:b/i"), and `wasm-tools print` writes it so. The binary
// reader skips the attribute, but the text reader refused the form with
// a bare `(import "name" externdesc)` at its position, so `aios-host wit`
// read the .wasm and refused its printed .wat. The attribute is skipped
// here too: both give the same syntax tree.
func TestImportImplements(t *testing.T) {
	const body = `(component
  (type (component
    (type (component
      (type (instance (type (func)) (export "f" (func (type 0)))))
      (import "x" %s(instance (type 0)))))
    (export "a:b/w" (component (type 0)))))
  (export "w" (type 0)))`
	with, err := Parse([]byte(strings.Replace(body, "%s", `(implements "a:b/i") `, 1)))
	if err != nil {
		t.Fatal(err)
	}
	without, err := Parse([]byte(strings.Replace(body, "%s", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(with, without) {
		t.Errorf("with (implements …): %+v\nwithout: %+v", with, without)
	}
	// Anything else there is still refused, naming what it is.
	_, err = Parse([]byte(strings.Replace(body, "%s", `(versionsuffix "1") `, 1)))
	if err == nil || !strings.Contains(err.Error(), "versionsuffix") {
		t.Errorf("(versionsuffix …): %v, want it refused naming it", err)
	}
}
