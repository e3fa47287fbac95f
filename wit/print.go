package wit

import (
	"fmt"
	"strconv"
	"strings"
)

// Print renders a resolved set of packages as one WIT source file: the root
// package first, every other package as a nested `package ... { }` block.
// Parsing the output yields the same model (see TestPrintRoundTrip).
func Print(r *Resolved) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	pp := &printer{b: &b}
	root := r.Root
	if root == nil {
		if len(r.Packages) == 0 {
			return ""
		}
		root = r.Packages[len(r.Packages)-1]
	}
	pp.pkg(root, false)
	for _, p := range r.Packages {
		if p == root || p == nil {
			continue
		}
		b.WriteString("\n")
		pp.pkg(p, true)
	}
	return b.String()
}

// PrintPackage renders one package with a `package ...;` header.
func PrintPackage(p *Package) string {
	var b strings.Builder
	(&printer{b: &b}).pkg(p, false)
	return b.String()
}

// PrintInterface renders one interface definition.
func PrintInterface(i *Interface) string {
	var b strings.Builder
	(&printer{b: &b, cur: i.Package}).iface(i, "")
	return b.String()
}

// PrintWorld renders one world definition.
func PrintWorld(w *World) string {
	var b strings.Builder
	(&printer{b: &b, cur: w.Package}).world(w, "")
	return b.String()
}

type printer struct {
	b   *strings.Builder
	cur *Package
	// inline is set while a type expression is being written out, over
	// is set once the output passed maxPrintBytes.
	inline, over bool
}

// Bounds of what Print writes. WIT text writes an anonymous type (tuple,
// list, option, result, map) out at every use, and anonymous types decoded
// from a binary may form a DAG that is exponentially larger written out
// (tuple<t, t> where t = tuple<u, u>, …): one type expression is written
// only up to maxInlineParts parts, and the whole output up to
// maxPrintBytes; past either, a comment says what was left out.
const (
	maxInlineParts = 10_000
	maxPrintBytes  = 64 << 20
)

// names maps the named types in scope to their local names.
type names struct {
	types map[*Type]string
	res   map[*Resource]string
}

func newNames(defs []*TypeDef) *names {
	n := &names{types: map[*Type]string{}, res: map[*Resource]string{}}
	for pass := 0; pass < 2; pass++ {
		for _, td := range defs {
			if td == nil || td.Type == nil || td.Alias != (pass == 1) {
				continue
			}
			t := td.Type
			if _, ok := n.types[t]; !ok && !isPrimitive(t) {
				n.types[t] = td.Name
			}
			if t.Resource != nil && t.Kind == KindOwn && t.Name != "" {
				if _, ok := n.res[t.Resource]; !ok {
					n.res[t.Resource] = td.Name
				}
			}
		}
	}
	return n
}

func isPrimitive(t *Type) bool { return t.Kind >= KindBool && t.Kind <= KindString }

// ident escapes keywords with '%'.
func ident(s string) string {
	if keywords[s] {
		return "%" + s
	}
	return s
}

func (pp *printer) w(s ...string) {
	for _, x := range s {
		if pp.over {
			return
		}
		pp.b.WriteString(x)
		if pp.b.Len() > maxPrintBytes {
			pp.over = true
			pp.b.WriteString(fmt.Sprintf("\n/* output truncated: more than %d MiB */\n", maxPrintBytes>>20))
		}
	}
}

// inlineParts counts the parts of t as a type expression writes it out
// (anonymous types expanded, named ones by name), at most limit + 1.
func inlineParts(t *Type, nm *names, limit int, memo map[*Type]int) int {
	if t == nil || t.Name != "" {
		return 1
	}
	if _, ok := nm.types[t]; ok {
		return 1
	}
	if n, ok := memo[t]; ok {
		return n
	}
	memo[t] = limit + 1
	n := 1
	for _, u := range append([]*Type{t.Elem, t.Key, t.Ok, t.Err}, t.Tuple...) {
		if u != nil && n <= limit {
			n = min(n+inlineParts(u, nm, limit, memo), limit+1)
		}
	}
	memo[t] = n
	return n
}

func (pp *printer) docs(d, ind string) {
	if d == "" {
		return
	}
	for _, ln := range strings.Split(d, "\n") {
		if ln == "" {
			pp.w(ind, "///\n")
		} else {
			pp.w(ind, "/// ", ln, "\n")
		}
	}
}

func (pp *printer) gate(g *Stability, ind string) {
	if g == nil {
		return
	}
	// An item a world took in through `include` keeps the @since of the
	// package it came from; where the printing package has no version, or
	// an older one, that gate would not parse here, so it is left out: it
	// records history and does not decide whether the item is active.
	// Its @deprecated goes with it: alone it would not parse either
	// (@deprecated must be paired with @since or @unstable).
	since := g.Since != "" && pp.sinceFits(g.Since)
	if since {
		pp.w(ind, "@since(version = ", g.Since)
		if g.Feature != "" {
			pp.w(", feature = ", ident(g.Feature))
		}
		pp.w(")\n")
	}
	if g.Unstable != "" {
		pp.w(ind, "@unstable(feature = ", ident(g.Unstable), ")\n")
	}
	if g.Deprecated != "" && (since || g.Unstable != "") {
		pp.w(ind, "@deprecated(version = ", g.Deprecated, ")\n")
	}
}

// sinceFits reports whether @since(version = v) is valid in the package
// being printed (see pkgState.checkSince).
func (pp *printer) sinceFits(v string) bool {
	if pp.cur == nil {
		return true
	}
	return pp.cur.Name.Version != "" && compareVersions(v, pp.cur.Name.Version) <= 0
}

func pkgRef(n PackageName) string {
	s := ident(n.Namespace) + ":" + ident(n.Name)
	if n.Version != "" {
		s += "@" + n.Version
	}
	return s
}

func (pp *printer) pkg(p *Package, nested bool) {
	pp.cur = p
	pp.docs(p.Docs, "")
	ind := ""
	if nested {
		pp.w("package ", pkgRef(p.Name), " {\n")
		ind = "  "
	} else {
		pp.w("package ", pkgRef(p.Name), ";\n")
	}
	for _, i := range p.Interfaces {
		if i == nil {
			continue
		}
		pp.w("\n")
		pp.iface(i, ind)
	}
	for _, w := range p.Worlds {
		if w == nil {
			continue
		}
		pp.w("\n")
		pp.world(w, ind)
	}
	if nested {
		pp.w("}\n")
	}
}

// ifaceRef is how an interface is named from the current package.
func (pp *printer) ifaceRef(i *Interface) string {
	if i.Package == pp.cur || i.Package == nil {
		return ident(i.Name)
	}
	n := i.Package.Name
	s := ident(n.Namespace) + ":" + ident(n.Name) + "/" + ident(i.Name)
	if n.Version != "" {
		s += "@" + n.Version
	}
	return s
}

func (pp *printer) iface(i *Interface, ind string) {
	pp.docs(i.Docs, ind)
	pp.gate(i.Gate, ind)
	pp.w(ind, "interface ", ident(i.Name), " {\n")
	pp.ifaceBody(i, ind+"  ")
	pp.w(ind, "}\n")
}

func (pp *printer) ifaceBody(i *Interface, ind string) {
	var defs []*TypeDef
	for _, td := range i.Types {
		if td != nil && td.Type != nil {
			defs = append(defs, td)
		}
	}
	nm := newNames(defs)
	pp.typeDefs(defs, nm, ind)
	for _, f := range i.Funcs {
		if f == nil {
			continue
		}
		pp.docs(f.Docs, ind)
		pp.gate(f.Gate, ind)
		pp.w(ind, ident(f.Name), ": ", pp.funcSig(f, nm), ";\n")
	}
}

// typeDefs prints uses (grouped by source and gate) and definitions.
func (pp *printer) typeDefs(defs []*TypeDef, nm *names, ind string) {
	for k := 0; k < len(defs); k++ {
		td := defs[k]
		if td.From != nil {
			j := k
			var parts []string
			for j < len(defs) && defs[j].From == td.From && sameGate(defs[j].Gate, td.Gate) {
				d := defs[j]
				if d.FromName == d.Name {
					parts = append(parts, ident(d.Name))
				} else {
					parts = append(parts, ident(d.FromName)+" as "+ident(d.Name))
				}
				j++
			}
			pp.gate(td.Gate, ind)
			pp.w(ind, "use ", pp.ifaceRef(td.From), ".{", strings.Join(parts, ", "), "};\n")
			k = j - 1
			continue
		}
		pp.typeDef(td, nm, ind)
	}
}

func sameGate(a, b *Stability) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func (pp *printer) typeDef(td *TypeDef, nm *names, ind string) {
	t := td.Type
	pp.docs(td.Docs, ind)
	pp.gate(td.Gate, ind)
	name := ident(td.Name)
	if td.Alias {
		pp.w(ind, "type ", name, " = ", pp.typeExpr(t, nm, td.Name), ";\n")
		return
	}
	in := ind + "  "
	switch t.Kind {
	case KindRecord:
		pp.w(ind, "record ", name, " {\n")
		for _, f := range t.Fields {
			pp.docs(f.Docs, in)
			pp.w(in, ident(f.Name), ": ", pp.ref(f.Type, nm), ",\n")
		}
		pp.w(ind, "}\n")
	case KindVariant:
		pp.w(ind, "variant ", name, " {\n")
		for _, c := range t.Cases {
			pp.docs(c.Docs, in)
			pp.w(in, ident(c.Name))
			if c.Type != nil {
				pp.w("(", pp.ref(c.Type, nm), ")")
			}
			pp.w(",\n")
		}
		pp.w(ind, "}\n")
	case KindEnum, KindFlags:
		kw := "enum "
		if t.Kind == KindFlags {
			kw = "flags "
		}
		pp.w(ind, kw, name, " {\n")
		for i, c := range t.Names {
			if i < len(t.NameDocs) {
				pp.docs(t.NameDocs[i], in)
			}
			pp.w(in, ident(c), ",\n")
		}
		pp.w(ind, "}\n")
	case KindOwn:
		r := t.Resource
		if r == nil || len(r.Methods) == 0 {
			pp.w(ind, "resource ", name, ";\n")
			return
		}
		pp.w(ind, "resource ", name, " {\n")
		for _, m := range r.Methods {
			if m == nil {
				continue
			}
			pp.docs(m.Docs, in)
			pp.gate(m.Gate, in)
			switch m.Kind {
			case FuncConstructor:
				pp.w(in, "constructor(", pp.params(m.Params, nm), ")")
				if m.Result != nil && m.Result != t {
					pp.w(" -> ", pp.ref(m.Result, nm))
				}
				pp.w(";\n")
			case FuncStatic:
				pp.w(in, ident(memberName(m.Name)), ": static ", pp.funcSig(m, nm), ";\n")
			default:
				c := *m
				if len(c.Params) > 0 {
					c.Params = c.Params[1:]
				}
				pp.w(in, ident(memberName(m.Name)), ": ", pp.funcSig(&c, nm), ";\n")
			}
		}
		pp.w(ind, "}\n")
	default:
		pp.w(ind, "type ", name, " = ", pp.typeExpr(t, nm, td.Name), ";\n")
	}
}

// memberName is a method's or static function's own name.
func memberName(n string) string {
	if _, _, m, _ := SplitMember(n); m != "" {
		return m
	}
	return n
}

func (pp *printer) params(ps []Param, nm *names) string {
	var parts []string
	for _, p := range ps {
		parts = append(parts, ident(p.Name)+": "+pp.ref(p.Type, nm))
	}
	return strings.Join(parts, ", ")
}

func (pp *printer) funcSig(f *Func, nm *names) string {
	s := "func(" + pp.params(f.Params, nm) + ")"
	if f.Async {
		s = "async " + s
	}
	if f.Result != nil {
		s += " -> " + pp.ref(f.Result, nm)
	}
	return s
}

// ref prints a reference to a type: its local name when it has one.
func (pp *printer) ref(t *Type, nm *names) string {
	if t == nil {
		return "_"
	}
	if n, ok := nm.types[t]; ok {
		return ident(n)
	}
	if pp.over {
		return "_"
	}
	if !pp.inline {
		if n := inlineParts(t, nm, maxInlineParts, map[*Type]int{}); n > maxInlineParts {
			return fmt.Sprintf("/* an anonymous %s of more than %d parts written out, not printed */", t.Kind, maxInlineParts)
		}
		pp.inline = true
		defer func() { pp.inline = false }()
	}
	return pp.typeExpr(t, nm, "")
}

// typeExpr prints a type's structure (one level; inner types by reference).
// self is the name being defined, which must not be used for t itself.
func (pp *printer) typeExpr(t *Type, nm *names, self string) string {
	if t == nil {
		return "_"
	}
	if n, ok := nm.types[t]; ok && n != self {
		return ident(n)
	}
	if t.Name != "" && self == "" {
		return ident(t.Name)
	}
	switch t.Kind {
	case KindList:
		if t.Len > 0 {
			return "list<" + pp.ref(t.Elem, nm) + ", " + strconv.FormatUint(uint64(t.Len), 10) + ">"
		}
		return "list<" + pp.ref(t.Elem, nm) + ">"
	case KindOption:
		return "option<" + pp.ref(t.Elem, nm) + ">"
	case KindFuture, KindStream:
		if t.Elem == nil {
			return t.Kind.String()
		}
		return t.Kind.String() + "<" + pp.ref(t.Elem, nm) + ">"
	case KindMap:
		return "map<" + pp.ref(t.Key, nm) + ", " + pp.ref(t.Elem, nm) + ">"
	case KindResult:
		switch {
		case t.Ok == nil && t.Err == nil:
			return "result"
		case t.Err == nil:
			return "result<" + pp.ref(t.Ok, nm) + ">"
		case t.Ok == nil:
			return "result<_, " + pp.ref(t.Err, nm) + ">"
		}
		return "result<" + pp.ref(t.Ok, nm) + ", " + pp.ref(t.Err, nm) + ">"
	case KindTuple:
		var parts []string
		for _, e := range t.Tuple {
			parts = append(parts, pp.ref(e, nm))
		}
		return "tuple<" + strings.Join(parts, ", ") + ">"
	case KindOwn, KindBorrow:
		if t.Resource == nil {
			return t.Kind.String() + "<_>"
		}
		rn := t.Resource.Name
		if n, ok := nm.res[t.Resource]; ok {
			rn = n
		}
		if t.Kind == KindOwn && t.Name != "" {
			return ident(rn)
		}
		return t.Kind.String() + "<" + ident(rn) + ">"
	case KindRecord, KindVariant, KindEnum, KindFlags:
		if t.Name == "" {
			return t.Kind.String() // an unnamed definition has no WIT reference
		}
		return ident(t.Name)
	}
	return t.Kind.String()
}

func (pp *printer) world(w *World, ind string) {
	pp.docs(w.Docs, ind)
	pp.gate(w.Gate, ind)
	pp.w(ind, "world ", ident(w.Name), " {\n")
	in := ind + "  "
	var defs []*TypeDef
	for _, it := range w.Imports {
		if it != nil && it.Type != nil && it.Type.Type != nil {
			defs = append(defs, it.Type)
		}
	}
	nm := newNames(defs)
	// Imports, then the world's types, then exports: re-parsing this order
	// yields the same order again.
	for d, list := range [][]*WorldItem{w.Imports, nil, w.Exports} {
		if d == 1 {
			pp.typeDefs(defs, nm, in)
			continue
		}
		kw := "import "
		if d == 2 {
			kw = "export "
		}
		for _, it := range list {
			if it == nil || it.Type != nil || it.Implicit || it.Func == nil && it.Interface == nil {
				continue
			}
			pp.docs(it.Docs, in)
			pp.gate(it.Gate, in)
			switch {
			case it.Func != nil:
				pp.w(in, kw, ident(it.Name), ": ", pp.funcSig(it.Func, nm), ";\n")
			case it.ByPath:
				pp.w(in, kw, pp.ifaceRef(it.Interface), ";\n")
			case it.Interface.Name != "":
				pp.w(in, kw, ident(it.Name), ": ", pp.ifaceRef(it.Interface), ";\n")
			default:
				pp.w(in, kw, ident(it.Name), ": interface {\n")
				pp.ifaceBody(it.Interface, in+"  ")
				pp.w(in, "}\n")
			}
		}
	}
	pp.w(ind, "}\n")
}
