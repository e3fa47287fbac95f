package wit

import (
	"sort"
	"strings"
)

type pkgState struct {
	r      *resolver
	src    *srcPkg
	pkg    *Package
	ifaces map[string]*ifaceState
	worlds map[string]*worldState
}

type ifaceState struct {
	ast   *astInterface
	file  *pkgFile
	iface *Interface
	state int
}

type worldState struct {
	ast   *astWorld
	file  *pkgFile
	world *World
	state int
}

func (r *resolver) resolvePkg(sp *srcPkg) (*pkgState, error) {
	ps := &pkgState{r: r, src: sp, ifaces: map[string]*ifaceState{}, worlds: map[string]*worldState{}}
	sp.st = ps
	ps.pkg = &Package{Name: PackageName{Namespace: sp.name.ns, Name: sp.name.name, Version: sp.name.version}, Docs: sp.docs}
	var ifOrder []*ifaceState
	var wOrder []*worldState
	declared := map[string]Position{}
	for _, f := range sp.files {
		local := map[string]Position{}
		for _, it := range f.items {
			var name astName
			switch x := it.(type) {
			case *astInterface:
				name = x.name
				is := &ifaceState{ast: x, file: f}
				ps.ifaces[name.name] = is
				ifOrder = append(ifOrder, is)
			case *astWorld:
				name = x.name
				ws := &worldState{ast: x, file: f}
				ps.worlds[name.name] = ws
				wOrder = append(wOrder, ws)
			default:
				continue
			}
			if first, dup := declared[name.name]; dup {
				return nil, errAt(name.pos, "duplicate item named `%s` (first defined at %s)", name.name, first)
			}
			declared[name.name] = name.pos
			local[name.name] = name.pos
		}
		for _, it := range f.items {
			if u, ok := it.(*astTopUse); ok {
				n := u.path.name
				if u.as != nil {
					n = *u.as
				}
				// The error is at the later of the two, as wasm-tools
				// has it, and names the earlier.
				other, dup := local[n.name]
				if prev := f.uses[n.name]; prev != nil {
					other, dup = prev.path.name.pos, true
					if prev.as != nil {
						other = prev.as.pos
					}
				}
				if dup {
					at := n.pos
					if before(at, other) {
						at, other = other, at
					}
					return nil, errAt(at, "duplicate name `%s` in this file (also at %s)", n.name, other)
				}
				f.uses[n.name] = u
			}
		}
	}
	for _, is := range ifOrder {
		i, err := ps.ensureIface(is)
		if err != nil {
			return nil, err
		}
		if i != nil {
			ps.pkg.Interfaces = append(ps.pkg.Interfaces, i)
		}
	}
	for _, f := range sp.files {
		for _, it := range f.items {
			if u, ok := it.(*astTopUse); ok {
				if _, err := ps.lookupIface(&pkgFile{uses: map[string]*astTopUse{}}, u.path); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, ws := range wOrder {
		w, err := ps.ensureWorld(ws)
		if err != nil {
			return nil, err
		}
		if w != nil {
			ps.pkg.Worlds = append(ps.pkg.Worlds, w)
		}
	}
	return ps, nil
}

// before reports whether a comes before b in the same file.
func before(a, b Position) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
}

func (ps *pkgState) id(name string) string {
	s := ps.src.name.ns + ":" + ps.src.name.name + "/" + name
	if ps.src.name.version != "" {
		s += "@" + ps.src.name.version
	}
	return s
}

// enter starts resolving the interface or world (container) a, whose
// resolution state is *state: 0 new, 1 in progress, 2 done. It returns
// true when the caller is to build it (and then set *state to 2); false
// when it is done already or its gate excludes it (state 2, nothing
// built). A cycle, a bad @since or a gated child of an excluded container
// is an error.
func (ps *pkgState) enter(state *int, name astName, gate astGate, items []any, container string) (bool, error) {
	switch *state {
	case 2:
		return false, nil
	case 1:
		return false, errAt(name.pos, "interface or world `%s` depends on itself", name.name)
	}
	*state = 1
	if err := ps.checkSince(gate, name.pos); err != nil {
		return false, err
	}
	if !ps.r.active(gate) {
		if err := ps.checkGatedChildren(items, container); err != nil {
			return false, err
		}
		*state = 2
		return false, nil
	}
	return true, nil
}

func (ps *pkgState) ensureIface(is *ifaceState) (*Interface, error) {
	a := is.ast
	if build, err := ps.enter(&is.state, a.name, a.gate, a.items, "interface"); err != nil {
		return nil, err
	} else if !build {
		return is.iface, nil
	}
	iface := &Interface{Name: a.name.name, Package: ps.pkg, Docs: a.docs, Gate: a.gate.stability()}
	if err := ps.fillInterface(iface, is.file, a.items, ps.id(a.name.name)); err != nil {
		return nil, err
	}
	iface.id = iface.ID()
	is.iface = iface
	is.state = 2
	return iface, nil
}

// checkGatedChildren refuses an item inside an excluded (inactive) container
// that is not itself excluded.
func (ps *pkgState) checkGatedChildren(items []any, container string) error {
	for _, it := range items {
		var g astGate
		var pos Position
		var members []*astFunc
		switch x := it.(type) {
		case *astUse:
			g, pos = x.gate, x.pos
		case *astTypeDef:
			g, pos, members = x.gate, x.name.pos, x.members
		case *astFunc:
			g, pos = x.gate, x.name.pos
		case *astWorldItem:
			g, pos = x.gate, x.pos
		case *astInclude:
			g, pos = x.gate, x.pos
		}
		if g.unstable == "" || ps.r.active(g) {
			return errAt(pos, "found a reference to a %s which is excluded due to its feature not being activated; this item is not gated by a feature but its %s is", container, container)
		}
		for _, m := range members {
			if m.gate.unstable == "" || ps.r.active(m.gate) {
				return errAt(m.pos, "found a reference to a type which is excluded due to its feature not being activated")
			}
		}
	}
	return nil
}

// lookupIface resolves a use path to an interface (what is `use`d, imported
// or exported).
func (ps *pkgState) lookupIface(f *pkgFile, u astUsePath) (*Interface, error) {
	if u.pkg == nil {
		if tu, ok := f.uses[u.name.name]; ok {
			if tu.path.pkg == nil && tu.path.name.name == u.name.name {
				return nil, errAt(u.name.pos, "interface or world `%s` does not exist", u.name.name)
			}
			return ps.lookupIface(&pkgFile{uses: map[string]*astTopUse{}}, tu.path)
		}
		if is, ok := ps.ifaces[u.name.name]; ok {
			i, err := ps.ensureIface(is)
			if err != nil {
				return nil, err
			}
			if i == nil {
				return nil, errAt(u.name.pos, "found a reference to a interface which is excluded due to its feature not being activated")
			}
			return i, nil
		}
		if _, ok := ps.worlds[u.name.name]; ok {
			return nil, errAt(u.name.pos, "name `%s` is defined as a world, not an interface", u.name.name)
		}
		return nil, errAt(u.name.pos, "interface or world `%s` does not exist", u.name.name)
	}
	sp, err := ps.r.lookupPkg(u.pkg)
	if err != nil {
		return nil, err
	}
	if sp == ps.src {
		return ps.lookupIface(&pkgFile{uses: map[string]*astTopUse{}}, astUsePath{name: u.name, pos: u.pos, plain: true})
	}
	other := sp.st
	if other == nil {
		return nil, errAt(u.pos, "package `%s` is not resolved yet (dependency cycle?)", sp.key)
	}
	is, ok := other.ifaces[u.name.name]
	if !ok {
		if _, isW := other.worlds[u.name.name]; isW {
			return nil, errAt(u.name.pos, "name `%s` is defined as a world, not an interface", u.name.name)
		}
		return nil, errAt(u.name.pos, "interface '%s' not found in package '%s'", u.name.name, sp.key)
	}
	if is.iface == nil {
		return nil, errAt(u.name.pos, "found a reference to a interface which is excluded due to its feature not being activated")
	}
	return is.iface, nil
}

func (ps *pkgState) lookupWorld(f *pkgFile, u astUsePath) (*World, error) {
	var target *pkgState
	if u.pkg == nil {
		target = ps
		if tu, ok := f.uses[u.name.name]; ok {
			return ps.lookupWorld(&pkgFile{uses: map[string]*astTopUse{}}, tu.path)
		}
	} else {
		sp, err := ps.r.lookupPkg(u.pkg)
		if err != nil {
			return nil, err
		}
		target = sp.st
		if sp == ps.src {
			target = ps
		}
		if target == nil {
			return nil, errAt(u.pos, "package `%s` is not resolved yet", sp.key)
		}
	}
	ws, ok := target.worlds[u.name.name]
	if !ok {
		if _, isI := target.ifaces[u.name.name]; isI {
			return nil, errAt(u.name.pos, "name `%s` is defined as an interface, not a world", u.name.name)
		}
		if u.pkg != nil {
			return nil, errAt(u.name.pos, "world '%s' not found in package '%s'", u.name.name, target.src.key)
		}
		return nil, errAt(u.name.pos, "interface or world `%s` does not exist", u.name.name)
	}
	w, err := target.ensureWorld(ws)
	if err != nil {
		return nil, err
	}
	if w == nil {
		return nil, errAt(u.name.pos, "found a reference to a world which is excluded due to its feature not being activated")
	}
	return w, nil
}

// ---- scopes: the names of an interface or world ----

const (
	eType = iota
	eFunc
	eExcluded
)

type entry struct {
	name  string
	pos   Position
	kind  int
	td    *astTypeDef
	typ   *Type
	def   *TypeDef
	state int
}

type scope struct {
	ps      *pkgState
	file    *pkgFile
	owner   string
	names   map[string]*entry
	lower   map[string]string
	entries []*entry
	uses    []*Interface
	pending []*entry // resources whose members are resolved after all types
}

func newScope(ps *pkgState, f *pkgFile, owner string) *scope {
	return &scope{ps: ps, file: f, owner: owner, names: map[string]*entry{}, lower: map[string]string{}}
}

func (sc *scope) define(e *entry) error {
	if _, ok := sc.names[e.name]; ok {
		return errAt(e.pos, "name `%s` is defined more than once", e.name)
	}
	if e.kind != eExcluded {
		l := strings.ToLower(e.name)
		if other, ok := sc.lower[l]; ok && other != e.name {
			return errAt(e.pos, "name `%s` conflicts with `%s` (kebab-case identifiers are case-insensitive)", e.name, other)
		}
		sc.lower[l] = e.name
	}
	sc.names[e.name] = e
	sc.entries = append(sc.entries, e)
	return nil
}

func (sc *scope) addUse(u *astUse) error {
	target, err := sc.ps.lookupIface(sc.file, u.path)
	if err != nil {
		return err
	}
	tsc := sc.ps.r.scopeOf(target)
	found := false
	for _, d := range sc.uses {
		found = found || d == target
	}
	if !found {
		sc.uses = append(sc.uses, target)
	}
	for _, n := range u.names {
		src := tsc.names[n.name.name]
		switch {
		case src == nil:
			// Which interface was looked in and what it defines (it said
			// "type `x` not defined in interface", or "name `x` does not
			// exist" for one of the same package).
			var types []string
			for name, e := range tsc.names {
				if e.kind == eType {
					types = append(types, name)
				}
			}
			sort.Strings(types)
			defines := "it defines no types"
			if len(types) > 0 {
				defines = "its types: " + strings.Join(types, ", ")
			}
			return errAt(n.name.pos, "type `%s` not defined in interface %s (%s)", n.name.name, target.ID(), defines)
		case src.kind == eExcluded:
			return errAt(n.name.pos, "found a reference to a type which is excluded due to its feature not being activated")
		case src.kind == eFunc:
			return errAt(n.name.pos, "cannot import function `%s`", n.name.name)
		}
		local := n.name
		if n.as != nil {
			local = *n.as
		}
		e := &entry{name: local.name, pos: local.pos, kind: eType, typ: src.typ, state: 2,
			def: &TypeDef{Name: local.name, Type: src.typ, Gate: u.gate.stability(), From: target, FromName: n.name.name}}
		if err := sc.define(e); err != nil {
			return err
		}
	}
	return nil
}

func (r *resolver) scopeOf(i *Interface) *scope { return r.scopes[i] }

// defineExcluded defines the names of a `use` gated out by its feature
// (eExcluded): they stay taken, so a name used twice is refused whatever
// the features, as wasm-tools does.
func (sc *scope) defineExcluded(u *astUse) error {
	for _, n := range u.names {
		l := n.name
		if n.as != nil {
			l = *n.as
		}
		if err := sc.define(&entry{name: l.name, pos: l.pos, kind: eExcluded}); err != nil {
			return err
		}
	}
	return nil
}

// fillInterface resolves the items of an interface (named or inline).
func (ps *pkgState) fillInterface(iface *Interface, f *pkgFile, items []any, owner string) error {
	sc := newScope(ps, f, owner)
	ps.r.scopes[iface] = sc
	var funcs []*astFunc
	for _, it := range items {
		switch x := it.(type) {
		case *astUse:
			if err := ps.checkSince(x.gate, x.pos); err != nil {
				return err
			}
			if !ps.r.active(x.gate) {
				if err := sc.defineExcluded(x); err != nil {
					return err
				}
				continue
			}
			if err := sc.addUse(x); err != nil {
				return err
			}
		case *astTypeDef:
			if err := ps.checkSince(x.gate, x.name.pos); err != nil {
				return err
			}
			if !ps.r.active(x.gate) {
				if err := ps.checkGatedMembers(x); err != nil {
					return err
				}
				if err := sc.define(&entry{name: x.name.name, pos: x.name.pos, kind: eExcluded}); err != nil {
					return err
				}
				continue
			}
			if err := sc.define(&entry{name: x.name.name, pos: x.name.pos, kind: eType, td: x}); err != nil {
				return err
			}
		case *astFunc:
			if err := ps.checkSince(x.gate, x.name.pos); err != nil {
				return err
			}
			if !ps.r.active(x.gate) {
				if err := sc.define(&entry{name: x.name.name, pos: x.name.pos, kind: eExcluded}); err != nil {
					return err
				}
				continue
			}
			if err := sc.define(&entry{name: x.name.name, pos: x.name.pos, kind: eFunc}); err != nil {
				return err
			}
			funcs = append(funcs, x)
		}
	}
	if err := sc.resolveAll(); err != nil {
		return err
	}
	for _, e := range sc.entries {
		if e.kind == eType && sc.names[e.name] == e {
			iface.Types = append(iface.Types, e.def)
		}
	}
	for _, af := range funcs {
		fn, err := sc.resolveFunc(af, FuncFree, nil, af.name.name)
		if err != nil {
			return err
		}
		iface.Funcs = append(iface.Funcs, fn)
	}
	iface.Uses = sc.uses
	return nil
}

func (ps *pkgState) checkGatedMembers(td *astTypeDef) error {
	for _, m := range td.members {
		if m.gate.unstable == "" || ps.r.active(m.gate) {
			return errAt(m.pos, "found a reference to a type which is excluded due to its feature not being activated")
		}
	}
	return nil
}

// resolveAll resolves every type entry and then resource members.
func (sc *scope) resolveAll() error {
	for _, e := range sc.entries {
		if e.kind == eType {
			if _, err := sc.resolveEntry(e, e.pos); err != nil {
				return err
			}
		}
	}
	for _, e := range sc.pending {
		if err := sc.resolveMembers(e); err != nil {
			return err
		}
	}
	sc.pending = nil
	return nil
}

func (sc *scope) resolveEntry(e *entry, ref Position) (*Type, error) {
	switch e.state {
	case 2:
		return e.typ, nil
	case 1:
		return nil, errAt(ref, "type `%s` depends on itself", e.name)
	}
	e.state = 1
	td := e.td
	def := &TypeDef{Name: td.name.name, Docs: td.docs, Gate: td.gate.stability()}
	e.def = def
	t := &Type{Name: td.name.name, Owner: sc.owner, Docs: td.docs, Gate: def.Gate}
	seen := map[string]bool{}
	field := func(n astName, what string) error {
		if seen[strings.ToLower(n.name)] {
			return errAt(n.pos, "%s `%s` is defined more than once", what, n.name)
		}
		seen[strings.ToLower(n.name)] = true
		return nil
	}
	switch td.kind {
	case tdAlias:
		at, err := sc.resolveType(td.alias)
		if err != nil {
			return nil, err
		}
		def.Alias = true
		t = at
	case tdRecord:
		t.Kind = KindRecord
		t.Fields = []Field{}
		for _, f := range td.fields {
			if err := field(f.name, "field"); err != nil {
				return nil, err
			}
			ft, err := sc.resolveType(f.typ)
			if err != nil {
				return nil, err
			}
			t.Fields = append(t.Fields, Field{Name: f.name.name, Type: ft, Docs: f.docs})
		}
	case tdVariant:
		t.Kind = KindVariant
		for _, f := range td.fields {
			if err := field(f.name, "case"); err != nil {
				return nil, err
			}
			c := Case{Name: f.name.name, Docs: f.docs}
			if f.typ != nil {
				ct, err := sc.resolveType(f.typ)
				if err != nil {
					return nil, err
				}
				c.Type = ct
			}
			t.Cases = append(t.Cases, c)
		}
	case tdEnum, tdFlags:
		t.Kind = KindEnum
		if td.kind == tdFlags {
			t.Kind = KindFlags
		}
		t.Names = []string{}
		for _, f := range td.fields {
			if err := field(f.name, "case"); err != nil {
				return nil, err
			}
			t.Names = append(t.Names, f.name.name)
			if f.docs != "" && t.NameDocs == nil {
				t.NameDocs = make([]string, len(td.fields))
			}
			if t.NameDocs != nil {
				t.NameDocs[len(t.Names)-1] = f.docs
			}
		}
		if td.kind == tdFlags && len(t.Names) > MaxFlags {
			return nil, errAt(td.name.pos, "flags `%s` has %d flags; at most %d are supported", td.name.name, len(t.Names), MaxFlags)
		}
	case tdResource:
		t.Kind = KindOwn
		t.Resource = &Resource{Name: td.name.name, Owner: sc.owner, Docs: td.docs}
		sc.pending = append(sc.pending, e)
	}
	def.Type = t
	e.typ = t
	e.state = 2
	return t, nil
}

func (sc *scope) resolveMembers(e *entry) error {
	td := e.td
	res := e.typ.Resource
	seen := map[string]string{} // lower case → as written
	ctor := false
	for _, m := range td.members {
		if err := sc.ps.checkSince(m.gate, m.pos); err != nil {
			return err
		}
		// Duplicates are refused whether or not their features are
		// enabled, as wasm-tools does (and as for the other names of an
		// interface, TestGatedOutNameStillDefined).
		if m.kind == FuncConstructor {
			if ctor {
				return errAt(m.pos, "duplicate constructors")
			}
			ctor = true
		} else {
			// Case-insensitively, as the other names of an interface:
			// `[method]r.m` and `[method]r.M` are one name to a
			// component.
			l := strings.ToLower(m.name.name)
			if other, ok := seen[l]; ok {
				if other == m.name.name {
					return errAt(m.pos, "duplicate function name `%s`", m.name.name)
				}
				return errAt(m.pos, "function `%s` conflicts with `%s` (kebab-case identifiers are case-insensitive)", m.name.name, other)
			}
			seen[l] = m.name.name
		}
		if !sc.ps.r.active(m.gate) {
			continue
		}
		var name string
		switch m.kind {
		case FuncConstructor:
			name = "[constructor]" + res.Name
		case FuncStatic:
			name = "[static]" + res.Name + "." + m.name.name
		default:
			name = "[method]" + res.Name + "." + m.name.name
		}
		fn, err := sc.resolveFunc(m, m.kind, e.typ, name)
		if err != nil {
			return err
		}
		res.Methods = append(res.Methods, fn)
	}
	return nil
}

func (sc *scope) lookupType(name string, pos Position) (*Type, error) {
	e, ok := sc.names[name]
	if !ok {
		return nil, errAt(pos, "type `%s` does not exist", name)
	}
	switch e.kind {
	case eExcluded:
		return nil, errAt(pos, "found a reference to a type which is excluded due to its feature not being activated")
	case eFunc:
		return nil, errAt(pos, "cannot use function `%s` as a type", name)
	}
	return sc.resolveEntry(e, pos)
}

func (sc *scope) isResourceDef(t *Type) bool {
	return t.Kind == KindOwn && t.Resource != nil && t.Name == t.Resource.Name && t.Owner == t.Resource.Owner
}

func (sc *scope) resolveType(at *astType) (*Type, error) {
	switch at.kind {
	case atPrim:
		if at.prim == KindErrorContext {
			return &Type{Kind: KindErrorContext}, nil
		}
		return Primitive(at.prim), nil
	case atNamed:
		return sc.lookupType(at.name, at.pos)
	case atOwn, atBorrow:
		t, err := sc.lookupType(at.name, at.pos)
		if err != nil {
			return nil, err
		}
		if !sc.isResourceDef(t) {
			return nil, errAt(at.pos, "type `%s` used in a handle must be a resource", at.name)
		}
		k := KindOwn
		if at.kind == atBorrow {
			k = KindBorrow
		}
		return &Type{Kind: k, Resource: t.Resource}, nil
	}
	sub := func(a *astType) (*Type, error) {
		if a == nil {
			return nil, nil
		}
		return sc.resolveType(a)
	}
	var err error
	t := &Type{}
	switch at.kind {
	case atList:
		t.Kind, t.Len = KindList, at.n
		t.Elem, err = sub(at.elem)
	case atOption:
		t.Kind = KindOption
		t.Elem, err = sub(at.elem)
	case atFuture:
		t.Kind = KindFuture
		t.Elem, err = sub(at.elem)
	case atStream:
		t.Kind = KindStream
		t.Elem, err = sub(at.elem)
	case atResult:
		t.Kind = KindResult
		if t.Ok, err = sub(at.elem); err == nil {
			t.Err, err = sub(at.err)
		}
	case atTuple:
		t.Kind = KindTuple
		t.Tuple = []*Type{}
		for _, e := range at.elems {
			et, err := sub(e)
			if err != nil {
				return nil, err
			}
			t.Tuple = append(t.Tuple, et)
		}
	case atMap:
		t.Kind = KindMap
		if t.Key, err = sub(at.key); err != nil {
			return nil, err
		}
		if t.Key.Kind > KindString || t.Key.Kind == KindF32 || t.Key.Kind == KindF64 {
			return nil, errAt(at.key.pos, "invalid map key type: map keys must be bool, u8, u16, u32, u64, s8, s16, s32, s64, char, or string")
		}
		t.Elem, err = sub(at.elem)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// containsBorrow tells whether a borrow handle occurs anywhere in t. Types
// are DAGs that may share subtrees, so visited nodes are remembered.
func containsBorrow(t *Type, seen map[*Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind {
	case KindBorrow:
		return true
	case KindOwn:
		return false
	}
	if containsBorrow(t.Elem, seen) || containsBorrow(t.Key, seen) || containsBorrow(t.Ok, seen) || containsBorrow(t.Err, seen) {
		return true
	}
	for _, f := range t.Fields {
		if containsBorrow(f.Type, seen) {
			return true
		}
	}
	for _, c := range t.Cases {
		if containsBorrow(c.Type, seen) {
			return true
		}
	}
	for _, e := range t.Tuple {
		if containsBorrow(e, seen) {
			return true
		}
	}
	return false
}

func (sc *scope) resolveFunc(af *astFunc, kind FuncKind, res *Type, name string) (*Func, error) {
	fn := &Func{Name: name, Kind: kind, Async: af.async, Docs: af.docs, Gate: af.gate.stability(), Params: []Param{}}
	seen := map[string]bool{}
	if kind == FuncMethod {
		fn.Params = append(fn.Params, Param{Name: "self", Type: &Type{Kind: KindBorrow, Resource: res.Resource}})
		seen["self"] = true
	}
	for _, p := range af.params {
		if seen[strings.ToLower(p.name.name)] {
			return nil, errAt(p.name.pos, "param `%s` is defined more than once", p.name.name)
		}
		seen[strings.ToLower(p.name.name)] = true
		t, err := sc.resolveType(p.typ)
		if err != nil {
			return nil, err
		}
		fn.Params = append(fn.Params, Param{Name: p.name.name, Type: t})
	}
	if af.result != nil {
		t, err := sc.resolveType(af.result)
		if err != nil {
			return nil, err
		}
		fn.Result = t
	}
	if kind == FuncConstructor {
		switch {
		case fn.Result == nil:
			fn.Result = res
		case fn.Result.Kind != KindResult:
			return nil, errAt(af.result.pos, "if a constructor return type is declared it must be a `result`")
		case fn.Result.Ok != res:
			p := af.result.pos
			if af.result.elem != nil {
				p = af.result.elem.pos
			}
			return nil, errAt(p, "the `ok` type must be the resource being constructed")
		}
	}
	if containsBorrow(fn.Result, map[*Type]bool{}) {
		return nil, errAt(af.pos, "function `%s` returns a type which contains a `borrow<T>` which is not supported", name)
	}
	return fn, nil
}
