package wit

import (
	"errors"
	"strings"
	"testing"
)

// TestExportDependencyErrorPosition: the error for an exported interface
// that depends (through an import) on another export pointed at the wrong
// place when the world also had items from an `include`: the positions of
// the explicit exports were looked up by the index of the export among all
// of the world's exports, so an export after an included one was reported
// at the next export's line, or at "0:0" with no file at all. The error
// now names the file and the line of the export it is about.
func TestExportDependencyErrorPosition(t *testing.T) {
	const head = `package a:b;
interface base { type id = u64; }
interface mid { use base.{id}; }
interface top { use mid.{id}; }
interface other { f: func(); }
world inner { export base; }
`
	for name, world := range map[string]string{
		"last":   "world w {\n  include inner;\n  export top;\n}\n",
		"middle": "world w {\n  include inner;\n  export top;\n  export other;\n}\n",
	} {
		_, err := ParseSource("x.wit", head+world, Options{})
		var we *Error
		if !errors.As(err, &we) {
			t.Errorf("%s: %v, want a *wit.Error", name, err)
			continue
		}
		if we.Pos.File != "x.wit" || we.Pos.Line != 9 {
			t.Errorf("%s: %v, want it at x.wit:9 (export top)", name, err)
		}
	}
}

// TestInlineExportNamedInDependencyError: the same error called every
// inline interface export `anon` (the name of the one in wasm-tools'
// import-and-export5 test); it names the export as written, as
// wasm-tools does.
func TestInlineExportNamedInDependencyError(t *testing.T) {
	src := `package a:b;
interface base { type id = u64; }
interface mid { use base.{id}; }
world w {
  export base;
  export tools: interface { use mid.{id}; }
}
`
	_, err := ParseSource("x.wit", src, Options{})
	if err == nil || !strings.Contains(err.Error(), "interface `tools` transitively depends") {
		t.Errorf("%v, want it to name the export `tools`", err)
	}
}
