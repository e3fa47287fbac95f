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

// doubling returns tuple<t, t> nested n levels over u32: n types, 2^n parts
// written out.
func doubling(n int) *Type {
	t := Primitive(KindU32)
	for range n {
		t = &Type{Kind: KindTuple, Tuple: []*Type{t, t}}
	}
	return t
}

// TestPrintBoundsAnonymousDAG: anonymous types decoded from a binary can
// share parts, so written out they may be exponentially larger than the
// file; Print writes one type expression only up to maxInlineParts and
// says what it left out, in time and space linear in the types.
func TestPrintBoundsAnonymousDAG(t *testing.T) {
	pkg := &Package{Name: PackageName{Namespace: "test", Name: "dag"}}
	small, big := doubling(10), doubling(64)
	i := &Interface{Name: "i", Package: pkg,
		Types: []*TypeDef{{Name: "named-big", Type: &Type{Kind: KindList, Elem: big}}},
		Funcs: []*Func{
			{Name: "small", Params: []Param{{Name: "a", Type: small}}},
			{Name: "big", Params: []Param{{Name: "a", Type: big}}, Result: &Type{Kind: KindOption, Elem: big}},
		}}
	pkg.Interfaces = []*Interface{i}
	out := PrintInterface(i)
	if n := strings.Count(out, "not printed"); n != 3 {
		t.Errorf("%d types left out, want 3 (the type definition, the parameter, the result):\n%.2000s", n, out)
	}
	if n := strings.Count(out, "tuple<u32, u32>"); n != 1<<9 {
		t.Errorf("the 10-level type was written with %d innermost tuples, want %d", n, 1<<9)
	}
	if len(out) > 1<<20 {
		t.Errorf("output of %d bytes", len(out))
	}
}

func TestTreeSize(t *testing.T) {
	for _, tc := range []struct {
		t     *Type
		limit int
		want  int
	}{
		{nil, 10, 0},
		{Primitive(KindU32), 10, 1},
		{doubling(3), 100, 15},
		{doubling(64), 10_000, 10_001},
		{&Type{Kind: KindRecord, Fields: []Field{{Name: "a", Type: doubling(2)}, {Name: "b", Type: Primitive(KindString)}}}, 100, 9},
	} {
		if got := TreeSize(tc.t, tc.limit); got != tc.want {
			t.Errorf("TreeSize(%v, %d) = %d, want %d", tc.t, tc.limit, got, tc.want)
		}
	}
	f := &Func{Name: "f", Params: []Param{{Name: "a", Type: doubling(3)}, {Name: "b", Type: doubling(3)}}, Result: doubling(2)}
	if got := FuncTreeSize(f, 100); got != 15+15+7 {
		t.Errorf("FuncTreeSize = %d, want 37", got)
	}
	if err := FuncJSONCompatible(&Func{Name: "g", Params: []Param{{Name: "a", Type: doubling(40)}}}); err == nil || !strings.Contains(err.Error(), "more than 10000 parts") {
		t.Errorf("FuncJSONCompatible of a 2^40-part type: %v", err)
	}
}
