package wit

import (
	"errors"
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
