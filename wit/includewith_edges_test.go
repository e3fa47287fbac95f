package wit

import "testing"

// TestIncludeWithFirstRenameWins: `include v with { x as y, x as z }`
// names the same item twice. wasm-tools takes the first rename (it looks
// the item up in the list in order), so the world imports `y`; this
// resolver took the last one, `z`: the same WIT gave a world whose import
// a component built with wasm-tools' bindings does not have.
func TestIncludeWithFirstRenameWins(t *testing.T) {
	res, err := ParseSource("w.wit", "package a:b;\nworld v { import x: func(); export e: func(); }\nworld w { include v with { x as y, x as z, e as f, e as g } }\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := res.Package("a:b").World("w")
	if len(w.Imports) != 1 || w.Imports[0].Name != "y" || w.Imports[0].Func == nil || w.Imports[0].Func.Name != "y" {
		t.Errorf("imports %+v, want one function y", w.Imports)
	}
	if len(w.Exports) != 1 || w.Exports[0].Name != "f" {
		t.Errorf("exports %+v, want one function f", w.Exports)
	}
}
