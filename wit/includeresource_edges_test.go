package wit

import (
	"strings"
	"testing"
)

// TestIncludeWithRenamesResource: `include a with { r as s }` of a world
// defining resource r gives the including world resource s, a resource
// of its own: its members are `[constructor]s`, `[method]s.m`,
// `[static]s.sm` (as wasm-tools resolves with-resource-as.wit, and as a
// component of that world imports them), and the functions taking r take
// s. The copy kept r's type, members named `[constructor]r`, and two
// includes renaming r differently shared one resource, so the second
// world's functions printed with the first one's name.
func TestIncludeWithRenamesResource(t *testing.T) {
	src := `package foo:foo;
world a {
  resource r {
    constructor();
    m: func() -> rec;
    sm: static func();
  }
  record rec { x: option<r> }
  import f: func(x: r) -> option<r>;
  export g: func(x: borrow<r>);
}
world b {
  include a with { r as s }
}
world c {
  include a with { r as s, f as f2, g as g2, rec as rec2 }
  include a with { r as t, f as f3, g as g3, rec as rec3 }
}
`
	res, err := ParseSource("w.wit", src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Package("foo:foo")
	item := func(w *World, name string) *WorldItem {
		for _, it := range append(append([]*WorldItem{}, w.Imports...), w.Exports...) {
			if it.Name == name {
				return it
			}
		}
		t.Fatalf("world %s has no %s", w.Name, name)
		return nil
	}
	a, b := p.World("a"), p.World("b")
	r, s := item(a, "r").Type.Type, item(b, "s").Type.Type
	if r == s || r.Resource == s.Resource {
		t.Fatalf("world b's s is world a's r")
	}
	if s.Name != "s" || s.Resource.Name != "s" || s.Owner != "foo:foo/b" {
		t.Errorf("s: name %q, resource %q, owner %q", s.Name, s.Resource.Name, s.Owner)
	}
	var names []string
	for _, m := range s.Resource.Methods {
		names = append(names, m.Name)
	}
	if got := strings.Join(names, " "); got != "[constructor]s [method]s.m [static]s.sm" {
		t.Errorf("s members %s", got)
	}
	for _, m := range s.Resource.Methods {
		if m.Kind == FuncMethod && m.Params[0].Type.Resource != s.Resource {
			t.Errorf("%s: self is not a borrow of s", m.Name)
		}
		if m.Kind == FuncConstructor && m.Result != s {
			t.Errorf("%s returns %v, not s", m.Name, m.Result)
		}
	}
	if f := item(b, "f").Func; f.Params[0].Type != s || f.Result.Elem != s {
		t.Errorf("b's f does not take and return s")
	}
	if g := item(b, "g").Func; g.Params[0].Type.Resource != s.Resource {
		t.Errorf("b's g does not borrow s")
	}
	if rec := item(b, "rec").Type.Type; rec.Fields[0].Type.Elem != s {
		t.Errorf("b's rec does not hold s")
	}
	// World a keeps its own resource.
	var an []string
	for _, m := range r.Resource.Methods {
		an = append(an, m.Name)
	}
	if got := strings.Join(an, " "); got != "[constructor]r [method]r.m [static]r.sm" || item(a, "f").Func.Params[0].Type != r {
		t.Errorf("world a changed: %s", got)
	}
	// Two includes, two resources: printed, f3 takes t, not s.
	out := PrintWorld(p.World("c"))
	for _, want := range []string{"f2: func(x: s) -> option<s>", "f3: func(x: t) -> option<t>", "g3: func(x: borrow<t>)", "x: option<t>", "m: func() -> rec3"} {
		if !strings.Contains(out, want) {
			t.Errorf("world c printed without %q:\n%s", want, out)
		}
	}
	if _, err := ParseSource("p.wit", Print(res), Options{}); err != nil {
		t.Errorf("printed form: %v\n%s", err, Print(res))
	}
}
