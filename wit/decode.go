package wit

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/aios-host/aios-host/component/binary"
)

// A WIT package in its binary encoding is a component that exports, for
// each interface and world of the package, a component type (the encoding
// `wasm-tools component wit --wasm` writes, that wit-component embeds in a
// component's `component-type` custom section, and that package registries
// publish):
//
//	(component
//	  (type (component                          ;; interface entry
//	    (type (instance ...))                   ;;   a dependency's types
//	    (import "ns:dep/iface" (instance (type 0)))
//	    (alias export 0 "t" (type))
//	    (type (instance ...))                   ;;   the interface itself
//	    (export "ns:pkg/iface" (instance (type 2)))))
//	  (export "iface" (type 0))
//	  (type (component                          ;; world entry
//	    (type (component ...))                  ;;   the world's imports and exports
//	    (export "ns:pkg/w" (component (type 0)))))
//	  (export "w" (type 1)))
//
// The decoder turns it back into WIT source, which the parser then reads
// like any .wit file: one code path resolves both. Interfaces of other
// packages that the package uses are only known by the types its imports
// of them declare (and, in a world, their functions); they become stub
// packages, which a package directory's deps/ replaces when it has the
// real ones. Doc comments and @since/@unstable/@deprecated gates come
// from the `package-docs` custom section beside the types (pkgdocs.go),
// written into that source in front of each item. What neither keeps
// does not come back: which world imports were implicit, and aliases of
// primitive or anonymous types where they are used.

// ErrNotPackage is wrapped by the error for a component (one with
// functions, instances or modules) given where a WIT package belongs.
var ErrNotPackage = errors.New("a component, not a WIT package")

// decoded is a package decoded from its binary encoding.
type decoded struct {
	name PackageName
	// src is WIT source of the package (`package ns:name;` and its items).
	src string
	// stubs are the other packages the package uses, as nested package
	// blocks (`package ns:dep { interface ... }`), by package name.
	stubs map[string]string
}

// text is the decoded package with every stub nested in it: one WIT
// source that resolves on its own.
func (d *decoded) text() string {
	var b strings.Builder
	b.WriteString(d.src)
	keys := make([]string, 0, len(d.stubs))
	for k := range d.stubs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString("\n")
		b.WriteString(d.stubs[k])
	}
	return b.String()
}

// maxDecodeItems bounds the declarations a decoded package may have, so a
// hostile binary cannot make the decoder build an unbounded text.
const maxDecodeItems = 100_000

// decodeBinary decodes a WIT package from its binary encoding.
func decodeBinary(b []byte) (*decoded, error) {
	if !binary.IsComponent(b) {
		return nil, fmt.Errorf("not a WIT package in binary form: want a WebAssembly component (\\0asm, version 0x0d, layer 1)")
	}
	c, err := binary.Parse(b)
	if err != nil {
		return nil, err
	}
	return decodeComponent(c)
}

// decodeComponent decodes a WIT package from its parsed binary (or text)
// encoding.
func decodeComponent(c *binary.Component) (*decoded, error) {
	d := &decoder{stubs: map[string]*dbody{}, own: map[string]bool{}}
	if err := d.top(c); err != nil {
		return nil, err
	}
	return d.finish()
}

// decoder holds what decoding one package collects.
type decoder struct {
	pkg     *PackageName
	ifaces  []*dbody // the package's interfaces, in order
	worlds  []*dworld
	stubs   map[string]*dbody // interface ID → richest body seen of an interface used but not defined here
	stubIDs []string          // stubs' IDs in the order first seen
	own     map[string]bool   // IDs of the interfaces the package defines
	items   int
	memo    map[memoKey]string
	docs    *pkgDocs // the package-docs section, nil when there is none
}

// dscope is a type index space: a component type (an entry, a world) or
// an instance type (an interface body), nested in its parent.
type dscope struct {
	parent *dscope
	types  []*dtype
	insts  []*dbody // instance index space (component types only)
}

// dtype is one entry of a type index space.
type dtype struct {
	def   *binary.TypeDef // an anonymous definition
	scope *dscope         // where def's indices point
	inst  *dbody          // an instance type's decoded body
	world *binary.TypeDef // a component type (a world)
	// A named type: home is the body (interface or world) that names it,
	// src what the name stands for (nil for a resource).
	home *dbody
	name string
	src  *dtype
	res  bool
}

// dbody is an interface (or the items of a world) as it decodes.
type dbody struct {
	id     string      // "ns:pkg/name@ver"; "" for a world or an inline interface
	pkg    PackageName // the package its use paths are relative to
	named  []*dtype    // named types, in order
	funcs  []dfunc
	byName map[string]*dtype
	useOf  map[*dtype]*dtype // a foreign type → its local name
}

type dfunc struct {
	name string
	def  *binary.TypeDef
	sc   *dscope
}

type dworld struct {
	name  string
	items []string   // rendered imports, types and exports
	docs  *worldDocs // its package-docs entry, or nil
}

func newBody(id string, pkg PackageName) *dbody {
	return &dbody{id: id, pkg: pkg, byName: map[string]*dtype{}, useOf: map[*dtype]*dtype{}}
}

func (d *decoder) count() error {
	d.items++
	if d.items > maxDecodeItems {
		return fmt.Errorf("more than %d declarations", maxDecodeItems)
	}
	return nil
}

// top reads the package component: component types exported by plain
// names.
func (d *decoder) top(c *binary.Component) error {
	// The package-docs section comes after the items it describes; it is
	// read first, as worlds are rendered when read.
	seen := false
	for _, def := range c.Defs {
		if def.Kind != binary.DefCustom || def.Custom == nil || def.Custom.Name != packageDocsSection {
			continue
		}
		if seen {
			return fmt.Errorf("more than one %s section", packageDocsSection)
		}
		seen = true
		docs, err := parsePackageDocs(def.Custom.Data)
		if err != nil {
			return fmt.Errorf("%s section: %w", packageDocsSection, err)
		}
		d.docs = docs
	}
	var types []*binary.TypeDef
	exported := 0
	for _, def := range c.Defs {
		switch def.Kind {
		case binary.DefCustom:
		case binary.DefType:
			types = append(types, def.Type)
		case binary.DefExport:
			e := def.Export
			if e.Ref.Sort != binary.SortType {
				return fmt.Errorf("%w: it exports %q, a %s; a WIT package exports only component types", ErrNotPackage, e.Name, e.Ref.Sort)
			}
			if strings.ContainsAny(e.Name, ":/") {
				return fmt.Errorf("export %q: the v1 WIT package encoding (one export named ns:pkg/wit) is not supported; re-encode the package with a current wasm-tools", e.Name)
			}
			if int(e.Ref.Idx) >= len(types) {
				return fmt.Errorf("export %q: type %d is not defined", e.Name, e.Ref.Idx)
			}
			td := types[e.Ref.Idx]
			if td.Kind != binary.TypeComponent {
				return fmt.Errorf("export %q: type %d is not a component type", e.Name, e.Ref.Idx)
			}
			if err := d.entry(e.Name, td); err != nil {
				return fmt.Errorf("%s: %w", e.Name, err)
			}
			exported++
			// An export of a type is a new index of the type space: the
			// next entry's export names the type after it.
			types = append(types, td)
		default:
			return fmt.Errorf("%w: it has a definition of kind %q (%s); a WIT package holds only types and their exports", ErrNotPackage, def.Kind, def.Where)
		}
	}
	if exported == 0 {
		return fmt.Errorf("no exported component type: not a WIT package")
	}
	return nil
}

func (d *decoder) setPkg(pn PackageName, what string) error {
	if d.pkg == nil {
		d.pkg = &pn
		return nil
	}
	if *d.pkg != pn {
		return fmt.Errorf("%s belongs to package %s, but the package is %s", what, pn, *d.pkg)
	}
	return nil
}

// entry decodes one exported component type: an interface or a world.
func (d *decoder) entry(label string, td *binary.TypeDef) error {
	sc := &dscope{}
	var self *dbody
	var world *dworld
	for i, decl := range td.Decls {
		if err := d.count(); err != nil {
			return err
		}
		switch decl.Kind {
		case binary.DeclType:
			t, err := d.typeDecl(decl.Type, sc)
			if err != nil {
				return fmt.Errorf("declaration %d: %w", i, err)
			}
			sc.types = append(sc.types, t)
		case binary.DeclAlias:
			t, err := aliasDecl(decl.Alias, sc)
			if err != nil {
				return fmt.Errorf("declaration %d: %w", i, err)
			}
			sc.types = append(sc.types, t)
		case binary.DeclImport:
			if decl.Extern.Sort != binary.SortInstance {
				return fmt.Errorf("declaration %d: import %q is a %s; an entry imports only interfaces", i, decl.Name, decl.Extern.Sort)
			}
			b, err := instBody(sc, decl.Extern.Idx)
			if err != nil {
				return fmt.Errorf("import %q: %w", decl.Name, err)
			}
			if err := d.nameBody(b, decl.Name); err != nil {
				return fmt.Errorf("import %q: %w", decl.Name, err)
			}
			sc.insts = append(sc.insts, b)
		case binary.DeclExport:
			if self != nil || world != nil {
				return fmt.Errorf("declaration %d: more than one export (%q)", i, decl.Name)
			}
			pn, name, err := splitDecodedID(decl.Name)
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			if name != label {
				return fmt.Errorf("exports %q under the name %q", decl.Name, label)
			}
			switch decl.Extern.Sort {
			case binary.SortInstance:
				if self, err = instBody(sc, decl.Extern.Idx); err != nil {
					return fmt.Errorf("export %q: %w", decl.Name, err)
				}
				if err := d.setPkg(pn, "interface "+decl.Name); err != nil {
					return err
				}
				self.id, self.pkg = decl.Name, pn
				if d.own[decl.Name] {
					return fmt.Errorf("interface %s is defined twice", decl.Name)
				}
				d.own[decl.Name] = true
				d.ifaces = append(d.ifaces, self)
				sc.insts = append(sc.insts, self)
			case binary.SortComponent:
				if int(decl.Extern.Idx) >= len(sc.types) || sc.types[decl.Extern.Idx].world == nil {
					return fmt.Errorf("export %q: type %d is not a component type", decl.Name, decl.Extern.Idx)
				}
				if err := d.setPkg(pn, "world "+decl.Name); err != nil {
					return err
				}
				if world, err = d.world(name, pn, sc.types[decl.Extern.Idx].world, sc); err != nil {
					return fmt.Errorf("world %s: %w", decl.Name, err)
				}
				d.worlds = append(d.worlds, world)
			default:
				return fmt.Errorf("export %q is a %s: want an instance (interface) or a component (world)", decl.Name, decl.Extern.Sort)
			}
		default:
			return fmt.Errorf("declaration %d: unexpected %d", i, decl.Kind)
		}
	}
	if self == nil && world == nil {
		return fmt.Errorf("exports neither an interface nor a world")
	}
	return nil
}

// splitDecodedID is SplitID for an interface or world ID read from a
// binary, whose parts become WIT text: each must be what WIT reads there
// (identifiers, a semantic version). SplitID takes any text between the
// separators, and a binary exporting "0:0/e" decoded to `package 0:0;`,
// WIT that does not parse.
func splitDecodedID(id string) (PackageName, string, error) {
	pn, name, err := SplitID(id)
	if err != nil {
		return pn, name, err
	}
	parts := append([]string{pn.Namespace}, strings.Split(pn.Name, ":")...)
	for _, w := range append(parts, name) {
		if err := validateID(w); err != nil {
			return pn, name, fmt.Errorf("%q is not an interface or world name of the form ns:pkg/name[@version]: %w", id, err)
		}
	}
	if pn.Version != "" && !isVersion(pn.Version) {
		return pn, name, fmt.Errorf("%q is not an interface or world name of the form ns:pkg/name[@version]: version %q is not a semantic version", id, pn.Version)
	}
	return pn, name, nil
}

// plainName checks a plain name read from a binary (a type, function or
// world item), which becomes WIT text as it is: a WIT identifier, or for a
// function a resource member's "[constructor]r", "[method]r.m" or
// "[static]r.m" (async too) of identifiers. Such a name was rendered and
// refused by the text parser at a place in text nobody sees
// ("e.wat (decoded):4:11: expected an identifier, found '{'").
func plainName(name string, member bool) error {
	parts := []string{name}
	if kind, res, m, _ := SplitMember(name); member && kind != FuncFree {
		parts = []string{res}
		if m != "" {
			parts = append(parts, m)
		}
	}
	for _, p := range parts {
		if err := validateID(p); err != nil {
			return fmt.Errorf("name %q is not a WIT identifier: %w", name, err)
		}
	}
	return nil
}

// nameBody gives an imported or exported instance body its interface ID
// (when name is one) and records it as a stub candidate.
func (d *decoder) nameBody(b *dbody, name string) error {
	pn, _, err := splitDecodedID(name)
	if err != nil {
		return err
	}
	if b.id != "" && b.id != name {
		return fmt.Errorf("one instance type is both %s and %s", b.id, name)
	}
	b.id, b.pkg = name, pn
	old := d.stubs[name]
	if old == nil {
		d.stubIDs = append(d.stubIDs, name)
	}
	if old == nil || len(b.named)+len(b.funcs) > len(old.named)+len(old.funcs) {
		d.stubs[name] = b
	}
	return nil
}

func instBody(sc *dscope, idx uint32) (*dbody, error) {
	if int(idx) >= len(sc.types) || sc.types[idx].inst == nil {
		return nil, fmt.Errorf("type %d is not an instance type", idx)
	}
	return sc.types[idx].inst, nil
}

// typeDecl is a type definition in a component type: instance types are
// decoded into bodies now, component types (worlds) when exported, value
// and function types kept for later.
func (d *decoder) typeDecl(td *binary.TypeDef, sc *dscope) (*dtype, error) {
	switch td.Kind {
	case binary.TypeInstance:
		b, err := d.instance(td, sc)
		if err != nil {
			return nil, err
		}
		return &dtype{inst: b}, nil
	case binary.TypeComponent:
		return &dtype{world: td}, nil
	case binary.TypeCoreModule, binary.TypeCoreFunc:
		return nil, fmt.Errorf("core types have no WIT form")
	}
	// A definition refers only to types defined before it: checked now,
	// so rendering never meets a cycle.
	n := len(sc.types)
	check := func(vt *binary.ValType) error {
		if vt != nil && vt.Prim == 0 && int(vt.Idx) >= n {
			return fmt.Errorf("type %d refers to type %d, which is not defined before it", n, vt.Idx)
		}
		return nil
	}
	for _, vt := range td.Types {
		if err := check(vt); err != nil {
			return nil, err
		}
	}
	if err := check(td.Result); err != nil {
		return nil, err
	}
	if (td.Kind == binary.TypeOwn || td.Kind == binary.TypeBorrow) && int(td.Idx) >= n {
		return nil, fmt.Errorf("type %d is a handle of type %d, which is not defined before it", n, td.Idx)
	}
	return &dtype{def: td, scope: sc}, nil
}

// aliasDecl resolves an outer alias or an alias of an instance's export.
func aliasDecl(a *binary.Alias, sc *dscope) (*dtype, error) {
	if a.Sort != binary.SortType {
		return nil, fmt.Errorf("alias of a %s: only types are aliased in WIT", a.Sort)
	}
	switch a.Kind {
	case binary.AliasOuter:
		t := sc
		for k := uint32(0); k < a.Count; k++ {
			if t.parent == nil {
				return nil, fmt.Errorf("outer alias count %d goes past the outermost type", a.Count)
			}
			t = t.parent
		}
		if int(a.Idx) >= len(t.types) {
			return nil, fmt.Errorf("outer alias of type %d: out of range", a.Idx)
		}
		return t.types[a.Idx], nil
	case binary.AliasExport:
		if int(a.Instance) >= len(sc.insts) {
			return nil, fmt.Errorf("alias of instance %d's export %q: no such instance", a.Instance, a.Name)
		}
		b := sc.insts[a.Instance]
		t := b.byName[a.Name]
		if t == nil {
			return nil, fmt.Errorf("alias of %q from %s: it exports no such type", a.Name, orInline(b.id))
		}
		return t, nil
	}
	return nil, fmt.Errorf("core export aliases have no WIT form")
}

func orInline(id string) string {
	if id == "" {
		return "an inline interface"
	}
	return id
}

// instance decodes an instance type into an interface body.
func (d *decoder) instance(td *binary.TypeDef, parent *dscope) (*dbody, error) {
	b := newBody("", PackageName{})
	sc := &dscope{parent: parent}
	for i, decl := range td.Decls {
		if err := d.count(); err != nil {
			return nil, err
		}
		switch decl.Kind {
		case binary.DeclType:
			if k := decl.Type.Kind; k == binary.TypeInstance || k == binary.TypeComponent {
				return nil, fmt.Errorf("declaration %d: nested instance or component types have no WIT form", i)
			}
			t, err := d.typeDecl(decl.Type, sc)
			if err != nil {
				return nil, fmt.Errorf("declaration %d: %w", i, err)
			}
			sc.types = append(sc.types, t)
		case binary.DeclAlias:
			if decl.Alias.Kind != binary.AliasOuter {
				return nil, fmt.Errorf("declaration %d: an interface aliases only outer types", i)
			}
			t, err := aliasDecl(decl.Alias, sc)
			if err != nil {
				return nil, fmt.Errorf("declaration %d: %w", i, err)
			}
			sc.types = append(sc.types, t)
		case binary.DeclExport:
			if err := b.export(decl, sc); err != nil {
				return nil, fmt.Errorf("export %q: %w", decl.Name, err)
			}
		default:
			return nil, fmt.Errorf("declaration %d: an interface has no imports", i)
		}
	}
	return b, nil
}

// export adds a named type or a function to b.
func (b *dbody) export(decl binary.Decl, sc *dscope) error {
	name := decl.Name
	if err := plainName(name, decl.Extern.Sort == binary.SortFunc); err != nil {
		return err
	}
	switch decl.Extern.Sort {
	case binary.SortType:
		if b.byName[name] != nil {
			return fmt.Errorf("type %q is defined twice", name)
		}
		t := &dtype{home: b, name: name}
		if decl.Extern.SubRes {
			t.res = true
		} else {
			if int(decl.Extern.Idx) >= len(sc.types) {
				return fmt.Errorf("type %d is not defined", decl.Extern.Idx)
			}
			t.src = sc.types[decl.Extern.Idx]
			if t.src.inst != nil || t.src.world != nil {
				return fmt.Errorf("type %d is an instance or component type, not a value type", decl.Extern.Idx)
			}
			if t.src.home != nil && t.src.home != b && b.useOf[t.src] == nil {
				b.useOf[t.src] = t
			}
		}
		b.named = append(b.named, t)
		b.byName[name] = t
		sc.types = append(sc.types, t)
	case binary.SortFunc:
		if int(decl.Extern.Idx) >= len(sc.types) || sc.types[decl.Extern.Idx].def == nil || sc.types[decl.Extern.Idx].def.Kind != binary.TypeFunc {
			return fmt.Errorf("type %d is not a function type", decl.Extern.Idx)
		}
		t := sc.types[decl.Extern.Idx]
		b.funcs = append(b.funcs, dfunc{name: name, def: t.def, sc: t.scope})
	default:
		return fmt.Errorf("a %s has no WIT form in an interface", decl.Extern.Sort)
	}
	return nil
}

// world decodes a world's component type.
func (d *decoder) world(name string, pn PackageName, td *binary.TypeDef, parent *dscope) (*dworld, error) {
	w := &dworld{name: name, docs: d.docs.world(name)}
	b := newBody("", pn) // the world's own types and functions
	sc := &dscope{parent: parent}
	r := d.render(b)
	r.meta = w.docs.body()
	// Names of the world's function and instance imports: an export's
	// docs may be filed under an import's name when no import has it.
	importNamed := map[[2]any]bool{}
	for _, decl := range td.Decls {
		if decl.Kind == binary.DeclImport {
			importNamed[[2]any{decl.Extern.Sort, decl.Name}] = true
		}
	}
	for i, decl := range td.Decls {
		if err := d.count(); err != nil {
			return nil, err
		}
		switch decl.Kind {
		case binary.DeclType:
			t, err := d.typeDecl(decl.Type, sc)
			if err != nil {
				return nil, fmt.Errorf("declaration %d: %w", i, err)
			}
			sc.types = append(sc.types, t)
		case binary.DeclAlias:
			t, err := aliasDecl(decl.Alias, sc)
			if err != nil {
				return nil, fmt.Errorf("declaration %d: %w", i, err)
			}
			sc.types = append(sc.types, t)
		case binary.DeclImport, binary.DeclExport:
			kw := "import "
			if decl.Kind == binary.DeclExport {
				kw = "export "
			}
			if !(decl.Extern.Sort == binary.SortInstance && strings.ContainsAny(decl.Name, ":/")) {
				if err := plainName(decl.Name, decl.Extern.Sort == binary.SortFunc); err != nil {
					return nil, fmt.Errorf("%s%w", kw, err)
				}
			}
			switch decl.Extern.Sort {
			case binary.SortInstance:
				ib, err := instBody(sc, decl.Extern.Idx)
				if err != nil {
					return nil, fmt.Errorf("%s%q: %w", kw, decl.Name, err)
				}
				sc.insts = append(sc.insts, ib)
				export := decl.Kind == binary.DeclExport
				if strings.ContainsAny(decl.Name, ":/") {
					if err := d.nameBody(ib, decl.Name); err != nil {
						return nil, fmt.Errorf("%s%q: %w", kw, decl.Name, err)
					}
					docs, gate := w.docs.byID(export, decl.Name)
					pre, err := prefix(docs, gate, pn.Version, "  ")
					if err != nil {
						return nil, fmt.Errorf("%s%s: %w", kw, decl.Name, err)
					}
					w.items = append(w.items, pre+kw+ifaceRef(pn, decl.Name)+";")
					continue
				}
				ib.pkg = pn
				ir := d.render(ib)
				ir.meta = w.docs.inline(export, importNamed[[2]any{binary.SortInstance, decl.Name}], decl.Name)
				text, err := ir.body("    ")
				if err != nil {
					return nil, fmt.Errorf("%s%s: %w", kw, decl.Name, err)
				}
				var pre string
				if ir.meta != nil {
					pre, err = itemPrefix(&ir.meta.itemDocs, pn.Version, "  ")
				} else {
					// An instance named by a plain name whose entry is
					// filed as a non-inline interface's.
					docs, gate := w.docs.byID(export, decl.Name)
					pre, err = prefix(docs, gate, pn.Version, "  ")
				}
				if err != nil {
					return nil, fmt.Errorf("%s%s: %w", kw, decl.Name, err)
				}
				w.items = append(w.items, pre+kw+ident(decl.Name)+": interface {\n"+text+"  }")
			case binary.SortFunc:
				if decl.Kind == binary.DeclImport && strings.HasPrefix(decl.Name, "[") {
					// A member of a world-level resource: printed with it.
					if err := b.export(decl, sc); err != nil {
						return nil, fmt.Errorf("import %q: %w", decl.Name, err)
					}
					continue
				}
				if int(decl.Extern.Idx) >= len(sc.types) || sc.types[decl.Extern.Idx].def == nil || sc.types[decl.Extern.Idx].def.Kind != binary.TypeFunc {
					return nil, fmt.Errorf("%s%q: type %d is not a function type", kw, decl.Name, decl.Extern.Idx)
				}
				sig, err := r.funcSig(sc.types[decl.Extern.Idx].def, sc.types[decl.Extern.Idx].scope, false)
				if err != nil {
					return nil, fmt.Errorf("%s%q: %w", kw, decl.Name, err)
				}
				pre, err := itemPrefix(w.docs.worldFunc(decl.Kind == binary.DeclExport, importNamed[[2]any{binary.SortFunc, decl.Name}], decl.Name), pn.Version, "  ")
				if err != nil {
					return nil, fmt.Errorf("%s%s: %w", kw, decl.Name, err)
				}
				w.items = append(w.items, pre+kw+ident(decl.Name)+": "+sig+";")
			case binary.SortType:
				if decl.Kind == binary.DeclExport {
					return nil, fmt.Errorf("export %q: a world exports no types", decl.Name)
				}
				if err := b.export(decl, sc); err != nil {
					return nil, fmt.Errorf("import %q: %w", decl.Name, err)
				}
			default:
				return nil, fmt.Errorf("%s%q: a %s has no WIT form in a world", kw, decl.Name, decl.Extern.Sort)
			}
		default:
			return nil, fmt.Errorf("declaration %d: unexpected kind %d", i, decl.Kind)
		}
	}
	// The world's types (and its resources' members) go between its
	// imports and exports.
	text, err := r.body("    ")
	if err != nil {
		return nil, err
	}
	if text != "" {
		w.items = append(w.items, strings.TrimSuffix(strings.TrimPrefix(text, "    "), "\n"))
	}
	return w, nil
}

// ifaceRef is how an interface or world of package from names the
// interface id: by its plain name in the same package, else in full.
func ifaceRef(from PackageName, id string) string {
	pn, name, err := SplitID(id)
	if err != nil {
		return id
	}
	if pn == from {
		return ident(name)
	}
	s := ident(pn.Namespace) + ":" + ident(pn.Name) + "/" + ident(name)
	if pn.Version != "" {
		s += "@" + pn.Version
	}
	return s
}

// finish renders the package and its stubs.
func (d *decoder) finish() (*decoded, error) {
	if d.pkg == nil {
		return nil, fmt.Errorf("no interface or world")
	}
	pn := *d.pkg
	var src strings.Builder
	if d.docs != nil {
		pre, err := prefix(d.docs.Docs, nil, pn.Version, "")
		if err != nil {
			return nil, fmt.Errorf("package: %w", err)
		}
		src.WriteString(pre)
	}
	src.WriteString("package " + pkgRef(pn) + ";\n")
	// The package's interfaces, then stubs of its own interfaces that only
	// its worlds declare (a world-only encoding, as in a component-type
	// section), then the worlds.
	bodies := append([]*dbody(nil), d.ifaces...)
	stubsByPkg := map[string][]*dbody{}
	for _, id := range d.stubIDs {
		if d.own[id] {
			continue
		}
		b := d.stubs[id]
		if b.pkg == pn {
			bodies = append(bodies, b)
			continue
		}
		stubsByPkg[b.pkg.String()] = append(stubsByPkg[b.pkg.String()], b)
	}
	for _, b := range bodies {
		_, name, _ := SplitID(b.id)
		r := d.render(b)
		r.meta = d.docs.iface(name)
		text, err := r.body("  ")
		if err != nil {
			return nil, fmt.Errorf("interface %s: %w", b.id, err)
		}
		var pre string
		if r.meta != nil {
			if pre, err = itemPrefix(&r.meta.itemDocs, pn.Version, ""); err != nil {
				return nil, fmt.Errorf("interface %s: %w", b.id, err)
			}
		}
		src.WriteString("\n" + pre + "interface " + ident(name) + " {\n" + text + "}\n")
	}
	for _, w := range d.worlds {
		var pre string
		if w.docs != nil {
			var err error
			if pre, err = itemPrefix(&w.docs.itemDocs, pn.Version, ""); err != nil {
				return nil, fmt.Errorf("world %s: %w", w.name, err)
			}
		}
		src.WriteString("\n" + pre + "world " + ident(w.name) + " {\n")
		for _, it := range w.items {
			src.WriteString("  " + it + "\n")
		}
		src.WriteString("}\n")
	}
	if err := d.docs.unused(); err != nil {
		return nil, err
	}
	out := &decoded{name: pn, src: src.String(), stubs: map[string]string{}}
	for key, bs := range stubsByPkg {
		var s strings.Builder
		s.WriteString("package " + pkgRef(bs[0].pkg) + " {\n")
		for _, b := range bs {
			_, name, _ := SplitID(b.id)
			text, err := d.render(b).body("    ")
			if err != nil {
				return nil, fmt.Errorf("interface %s: %w", b.id, err)
			}
			s.WriteString("  interface " + ident(name) + " {\n" + text + "  }\n")
		}
		s.WriteString("}\n")
		out.stubs[key] = s.String()
	}
	return out, nil
}

// render writes a body's items as WIT.
type render struct {
	b    *dbody
	memo map[memoKey]string
	meta *ifaceDocs // the body's package-docs entry, or nil
}

// memoKey is a type expression as seen from one body: anonymous types
// shared by index are rendered once, so a chain of types that each use
// the previous one twice costs linear time until maxTypeText stops it.
type memoKey struct {
	td *binary.TypeDef
	b  *dbody
}

// maxTypeText bounds one rendered type expression. Anonymous types are
// written out in place in WIT, so n types that each use the previous one
// twice would otherwise write 2^n bytes.
const maxTypeText = 1 << 20

func (d *decoder) render(b *dbody) *render {
	if d.memo == nil {
		d.memo = map[memoKey]string{}
	}
	return &render{b: b, memo: d.memo}
}

// body renders the types (uses, definitions, resources with their
// members) and the free functions of r.b, each line indented by ind.
func (r *render) body(ind string) (string, error) {
	b := r.b
	var out strings.Builder
	members := map[string][]dfunc{}
	var free []dfunc
	for _, f := range b.funcs {
		if kind, res, _, _ := SplitMember(f.name); kind != FuncFree {
			if t := b.byName[res]; t != nil && t.res {
				members[res] = append(members[res], f)
				continue
			}
			return "", fmt.Errorf("function %q belongs to resource %q, which is not defined here", f.name, res)
		}
		free = append(free, f)
	}
	for _, t := range b.named {
		line, err := r.typeDef(t, members[t.name], ind)
		if err != nil {
			return "", fmt.Errorf("type %s: %w", t.name, err)
		}
		out.WriteString(line)
	}
	for _, f := range free {
		sig, err := r.funcSig(f.def, f.sc, false)
		if err != nil {
			return "", fmt.Errorf("function %s: %w", f.name, err)
		}
		pre, err := itemPrefix(r.meta.fn(f.name), b.pkg.Version, ind)
		if err != nil {
			return "", fmt.Errorf("function %s: %w", f.name, err)
		}
		out.WriteString(ind + pre + ident(f.name) + ": " + sig + ";\n")
	}
	return out.String(), nil
}

// typeDef renders one named type of r.b, with its docs and gate from
// the package-docs section.
func (r *render) typeDef(t *dtype, members []dfunc, ind string) (string, error) {
	meta := r.meta.typ(t.name)
	var pre string
	if meta != nil {
		var err error
		if pre, err = itemPrefix(&meta.itemDocs, r.b.pkg.Version, ind); err != nil {
			return "", err
		}
	}
	// item is the doc comment of a field, case or flag.
	item := func(label, ind string) (string, error) {
		if meta == nil || meta.Items[label] == nil {
			return "", nil
		}
		x := meta.Items[label]
		x.used = true
		return prefix(&x.s, nil, "", ind)
	}
	hasItems := meta != nil && len(meta.Items) > 0
	name := ident(t.name)
	if t.res {
		if hasItems {
			return "", fmt.Errorf("%s section: items (fields or cases) for a resource", packageDocsSection)
		}
		if len(members) == 0 {
			return ind + pre + "resource " + name + ";\n", nil
		}
		var s strings.Builder
		s.WriteString(ind + pre + "resource " + name + " {\n")
		for _, m := range members {
			line, err := r.member(t, m)
			if err != nil {
				return "", fmt.Errorf("%s: %w", m.name, err)
			}
			mpre, err := itemPrefix(r.meta.fn(m.name), r.b.pkg.Version, ind+"  ")
			if err != nil {
				return "", fmt.Errorf("%s: %w", m.name, err)
			}
			s.WriteString(ind + "  " + mpre + line + ";\n")
		}
		s.WriteString(ind + "}\n")
		return s.String(), nil
	}
	src := t.src
	if src.home != nil {
		if hasItems {
			return "", fmt.Errorf("%s section: items (fields or cases) for a type that names another type", packageDocsSection)
		}
		if src.home == r.b {
			return ind + pre + "type " + name + " = " + ident(src.name) + ";\n", nil
		}
		if src.home.id == "" {
			return "", fmt.Errorf("uses a type of an inline interface or a world, which WIT cannot name")
		}
		path := ifaceRef(r.b.pkg, src.home.id)
		use := ident(src.name)
		if src.name != t.name {
			use += " as " + name
		}
		// A `use` has no docs of its own in WIT; its gate is the type's.
		if meta != nil {
			var err error
			if pre, err = prefix(nil, meta.Stability, r.b.pkg.Version, ind); err != nil {
				return "", err
			}
		}
		return ind + pre + "use " + path + ".{" + use + "};\n", nil
	}
	td := src.def
	in := ind + "  "
	var s strings.Builder
	switch td.Kind {
	case binary.TypeRecord, binary.TypeVariant, binary.TypeEnum, binary.TypeFlags:
		for _, l := range td.Labels {
			if err := plainName(l, false); err != nil {
				return "", err
			}
		}
	}
	switch td.Kind {
	case binary.TypeRecord:
		s.WriteString(ind + pre + "record " + name + " {\n")
		for i, l := range td.Labels {
			ref, err := r.ref(td.Types[i], src.scope)
			if err != nil {
				return "", fmt.Errorf("field %s: %w", l, err)
			}
			doc, err := item(l, in)
			if err != nil {
				return "", fmt.Errorf("field %s: %w", l, err)
			}
			s.WriteString(in + doc + ident(l) + ": " + ref + ",\n")
		}
		s.WriteString(ind + "}\n")
	case binary.TypeVariant:
		s.WriteString(ind + pre + "variant " + name + " {\n")
		for i, l := range td.Labels {
			doc, err := item(l, in)
			if err != nil {
				return "", fmt.Errorf("case %s: %w", l, err)
			}
			s.WriteString(in + doc + ident(l))
			if td.Types[i] != nil {
				ref, err := r.ref(td.Types[i], src.scope)
				if err != nil {
					return "", fmt.Errorf("case %s: %w", l, err)
				}
				s.WriteString("(" + ref + ")")
			}
			s.WriteString(",\n")
		}
		s.WriteString(ind + "}\n")
	case binary.TypeEnum, binary.TypeFlags:
		kw := "enum "
		if td.Kind == binary.TypeFlags {
			kw = "flags "
		}
		s.WriteString(ind + pre + kw + name + " {\n")
		for _, l := range td.Labels {
			doc, err := item(l, in)
			if err != nil {
				return "", fmt.Errorf("%s: %w", l, err)
			}
			s.WriteString(in + doc + ident(l) + ",\n")
		}
		s.WriteString(ind + "}\n")
	case binary.TypeFunc, binary.TypeResource:
		return "", fmt.Errorf("a %s type cannot be named by a type export", map[bool]string{true: "function", false: "resource"}[td.Kind == binary.TypeFunc])
	default:
		if hasItems {
			return "", fmt.Errorf("%s section: items (fields or cases) for a type that is not a record, variant, enum or flags", packageDocsSection)
		}
		expr, err := r.expr(td, src.scope)
		if err != nil {
			return "", err
		}
		s.WriteString(ind + pre + "type " + name + " = " + expr + ";\n")
	}
	return s.String(), nil
}

// member renders a resource's constructor, method or static function.
func (r *render) member(res *dtype, f dfunc) (string, error) {
	kind, _, name, async := SplitMember(f.name)
	if kind == FuncConstructor {
		params, err := r.params(f.def, f.sc, false)
		if err != nil {
			return "", err
		}
		line := "constructor(" + params + ")"
		if f.def.Result != nil {
			// A constructor returns own<res>; anything else (result<res, e>)
			// is written out.
			rt, ok := r.lookup(f.def.Result, f.sc)
			own := ok && rt.def != nil && rt.def.Kind == binary.TypeOwn && resource(rt.scope.types[rt.def.Idx]) == res
			if !own {
				ref, err := r.ref(f.def.Result, f.sc)
				if err != nil {
					return "", err
				}
				line += " -> " + ref
			}
		}
		return line, nil
	}
	if kind == FuncMethod && len(f.def.Labels) == 0 {
		return "", fmt.Errorf("a method without a self parameter")
	}
	sig, err := r.funcSig(f.def, f.sc, kind == FuncMethod)
	if err != nil {
		return "", err
	}
	if async && !f.def.Async {
		sig = "async " + sig // an "[async …]" name whose type does not say so
	}
	if kind == FuncStatic {
		sig = "static " + sig
	}
	return ident(name) + ": " + sig, nil
}

// resource is the resource a named type stands for (through uses and
// aliases), or nil.
func resource(t *dtype) *dtype {
	for i := 0; t != nil && i < maxDecodeItems; i++ {
		if t.res {
			return t
		}
		if t.home == nil {
			return nil
		}
		t = t.src
	}
	return nil
}

// funcSig renders `[async] func(params) [-> result]`; dropSelf leaves out
// a method's first parameter.
func (r *render) funcSig(td *binary.TypeDef, sc *dscope, dropSelf bool) (string, error) {
	params, err := r.params(td, sc, dropSelf)
	if err != nil {
		return "", err
	}
	s := "func(" + params + ")"
	if td.Async {
		s = "async " + s
	}
	if td.Result != nil {
		ref, err := r.ref(td.Result, sc)
		if err != nil {
			return "", fmt.Errorf("result: %w", err)
		}
		s += " -> " + ref
	}
	return s, nil
}

func (r *render) params(td *binary.TypeDef, sc *dscope, dropSelf bool) (string, error) {
	var parts []string
	for i, l := range td.Labels {
		if dropSelf && i == 0 {
			continue
		}
		if err := plainName(l, false); err != nil {
			return "", fmt.Errorf("parameter: %w", err)
		}
		ref, err := r.ref(td.Types[i], sc)
		if err != nil {
			return "", fmt.Errorf("parameter %s: %w", l, err)
		}
		parts = append(parts, ident(l)+": "+ref)
	}
	return strings.Join(parts, ", "), nil
}

func (r *render) lookup(vt *binary.ValType, sc *dscope) (*dtype, bool) {
	if vt == nil || vt.Prim != 0 || sc == nil || int(vt.Idx) >= len(sc.types) {
		return nil, false
	}
	return sc.types[vt.Idx], true
}

// ref renders a reference to a value type from r.b.
func (r *render) ref(vt *binary.ValType, sc *dscope) (string, error) {
	if vt == nil {
		return "_", nil
	}
	if vt.Prim != 0 {
		return primName(vt.Prim)
	}
	t, ok := r.lookup(vt, sc)
	if !ok {
		return "", fmt.Errorf("type %d is not defined", vt.Idx)
	}
	return r.refType(t)
}

func (r *render) refType(t *dtype) (string, error) {
	if t.home != nil {
		if t.home == r.b {
			return ident(t.name), nil
		}
		if u := r.b.useOf[t]; u != nil {
			return ident(u.name), nil
		}
		return "", fmt.Errorf("refers to %s's type %s without a `use` of it", orInline(t.home.id), t.name)
	}
	if t.def == nil {
		return "", fmt.Errorf("refers to an instance or component type where a value type belongs")
	}
	return r.expr(t.def, t.scope)
}

// expr renders an anonymous type's structure.
func (r *render) expr(td *binary.TypeDef, sc *dscope) (string, error) {
	k := memoKey{td, r.b}
	if s, ok := r.memo[k]; ok {
		return s, nil
	}
	s, err := r.expr1(td, sc)
	if err != nil {
		return "", err
	}
	if len(s) > maxTypeText {
		return "", fmt.Errorf("a type expression longer than %d bytes", maxTypeText)
	}
	r.memo[k] = s
	return s, nil
}

func (r *render) expr1(td *binary.TypeDef, sc *dscope) (string, error) {
	one := func(vt *binary.ValType) (string, error) { return r.ref(vt, sc) }
	switch td.Kind {
	case binary.TypePrim:
		return primName(td.Prim)
	case binary.TypeErrorContext:
		return "error-context", nil
	case binary.TypeList, binary.TypeOption:
		e, err := one(td.Types[0])
		if err != nil {
			return "", err
		}
		if td.Kind == binary.TypeOption {
			return "option<" + e + ">", nil
		}
		if td.Len > 0 {
			return "list<" + e + ", " + strconv.FormatUint(uint64(td.Len), 10) + ">", nil
		}
		return "list<" + e + ">", nil
	case binary.TypeMap:
		k, err := one(td.Types[0])
		if err != nil {
			return "", err
		}
		v, err := one(td.Types[1])
		if err != nil {
			return "", err
		}
		return "map<" + k + ", " + v + ">", nil
	case binary.TypeTuple:
		parts := make([]string, 0, len(td.Types))
		for _, x := range td.Types {
			e, err := one(x)
			if err != nil {
				return "", err
			}
			parts = append(parts, e)
		}
		return "tuple<" + strings.Join(parts, ", ") + ">", nil
	case binary.TypeResult:
		ok, err := one(td.Types[0])
		if err != nil {
			return "", err
		}
		e, err := one(td.Types[1])
		if err != nil {
			return "", err
		}
		switch {
		case td.Types[0] == nil && td.Types[1] == nil:
			return "result", nil
		case td.Types[1] == nil:
			return "result<" + ok + ">", nil
		}
		return "result<" + ok + ", " + e + ">", nil
	case binary.TypeOwn, binary.TypeBorrow:
		if int(td.Idx) >= len(sc.types) {
			return "", fmt.Errorf("handle of type %d: not defined", td.Idx)
		}
		res := sc.types[td.Idx]
		if resource(res) == nil {
			return "", fmt.Errorf("handle of type %d, which is not a resource", td.Idx)
		}
		n, err := r.refType(res)
		if err != nil {
			return "", err
		}
		if td.Kind == binary.TypeBorrow {
			return "borrow<" + n + ">", nil
		}
		return n, nil
	case binary.TypeFuture, binary.TypeStream:
		kw := "future"
		if td.Kind == binary.TypeStream {
			kw = "stream"
		}
		if td.Types == nil || td.Types[0] == nil {
			return kw, nil
		}
		e, err := one(td.Types[0])
		if err != nil {
			return "", err
		}
		return kw + "<" + e + ">", nil
	case binary.TypeRecord, binary.TypeVariant, binary.TypeEnum, binary.TypeFlags:
		return "", fmt.Errorf("an unnamed record, variant, enum or flags type, which WIT cannot write")
	}
	return "", fmt.Errorf("a type of kind %d has no WIT form here", td.Kind)
}

func primName(op byte) (string, error) {
	switch op {
	case binary.PrimBool:
		return "bool", nil
	case binary.PrimS8:
		return "s8", nil
	case binary.PrimU8:
		return "u8", nil
	case binary.PrimS16:
		return "s16", nil
	case binary.PrimU16:
		return "u16", nil
	case binary.PrimS32:
		return "s32", nil
	case binary.PrimU32:
		return "u32", nil
	case binary.PrimS64:
		return "s64", nil
	case binary.PrimU64:
		return "u64", nil
	case binary.PrimF32:
		return "f32", nil
	case binary.PrimF64:
		return "f64", nil
	case binary.PrimChar:
		return "char", nil
	case binary.PrimString:
		return "string", nil
	case binary.PrimErrorContext:
		return "error-context", nil
	}
	return "", fmt.Errorf("unknown primitive type %#x", op)
}
