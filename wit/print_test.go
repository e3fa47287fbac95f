package wit

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestPrintRoundTrip prints every valid corpus input, parses the output and
// prints again: both texts and the shapes of the models must agree.
func TestPrintRoundTrip(t *testing.T) {
	dir := corpusDir(t)
	for _, p := range corpusInputs(t, dir) {
		name := filepath.Base(p)
		if _, known := corpusKnownFailures[name]; known {
			continue
		}
		res, err := Parse(p, corpusOpts)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		text := Print(res)
		res2, err := ParseSource(name+".printed.wit", text, corpusOpts)
		if err != nil {
			t.Errorf("%s: printed text does not parse: %v\n%s", name, err, text)
			continue
		}
		if text2 := Print(res2); text2 != text {
			t.Errorf("%s: print is not stable:\n--- first\n%s\n--- second\n%s", name, text, text2)
			continue
		}
		if shape(res) != shape(res2) {
			t.Errorf("%s: model changed:\n%s\n---\n%s", name, shape(res), shape(res2))
		}
	}
}

// shape summarizes a model: packages, interfaces with type and function
// names, worlds with import and export names.
func shape(r *Resolved) string {
	s := ""
	for _, p := range r.Packages {
		s += "package " + p.Name.String() + "\n"
		for _, i := range p.Interfaces {
			s += " interface " + i.Name + ":"
			for _, td := range i.Types {
				s += " " + td.Name + "=" + td.Type.Kind.String()
			}
			for _, f := range i.Funcs {
				s += " " + f.Name + "()"
			}
			s += "\n"
		}
		for _, w := range p.Worlds {
			var items []string
			for _, it := range w.Imports {
				items = append(items, "i:"+it.Name)
			}
			for _, it := range w.Exports {
				items = append(items, "e:"+it.Name)
			}
			sort.Strings(items)
			s += " world " + w.Name + ": " + strings.Join(items, " ") + "\n"
		}
	}
	return s
}

// TestPrintHandBuilt prints a model built by hand (as the component reader
// does from a binary), including incomplete parts, without panicking.
func TestPrintHandBuilt(t *testing.T) {
	rec := &Type{Kind: KindRecord, Fields: []Field{{Name: "a", Type: Primitive(KindU32)}, {Name: "b"}}}
	root := &Package{Name: PackageName{Namespace: "root", Name: "component"}}
	dep := &Package{Name: PackageName{Namespace: "wasi", Name: "io", Version: "0.2.0"}}
	streams := &Interface{Name: "streams", Package: dep, Types: []*TypeDef{{Name: "r", Type: rec}, nil, {Name: "h", Type: &Type{Kind: KindOwn}}}}
	dep.Interfaces = []*Interface{streams}
	w := &World{Name: "root", Package: root, Imports: []*WorldItem{
		{Name: "wasi:io/streams@0.2.0", Interface: streams, ByPath: true},
		{Name: "t", Type: &TypeDef{Name: "t", Type: &Type{Kind: KindList}}},
		{Name: "empty"},
		nil,
	}, Exports: []*WorldItem{{Name: "run", Func: &Func{Name: "run", Params: []Param{{Name: "x", Type: rec}}, Result: &Type{Kind: KindOption}}}}}
	root.Worlds = []*World{w}
	out := Print(&Resolved{Packages: []*Package{dep, root}})
	for _, want := range []string{"package root:component;", "import wasi:io/streams@0.2.0;", "export run: func(x: record) -> option<_>;", "package wasi:io@0.2.0 {", "record r {"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if Print(nil) != "" || Print(&Resolved{}) != "" {
		t.Error("empty models should print nothing")
	}
}
