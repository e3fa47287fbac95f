package wit

import (
	"strings"
)

const (
	dirImport = 0
	dirExport = 1
)

var dirName = [2]string{"import", "export"}

type worldBuilder struct {
	w     *World
	keys  [2]map[string]*WorldItem
	lower [2]map[string]string
}

func itemKind(it *WorldItem) string {
	switch {
	case it.Func != nil:
		return "func"
	case it.Type != nil:
		return "type"
	}
	return "interface"
}

func sameItem(a, b *WorldItem) bool {
	switch {
	case a.Interface != nil:
		return a.Interface == b.Interface
	case a.Func != nil:
		return a.Func == b.Func
	case a.Type != nil && b.Type != nil:
		return a.Type.Type == b.Type.Type
	}
	return false
}

// add adds an item; mode is "explicit", "implicit" or "include".
func (wb *worldBuilder) add(dir int, it *WorldItem, pos Position, mode string) error {
	key := it.Name
	if old, ok := wb.keys[dir][key]; ok {
		if it.ByPath && old.ByPath && old.Interface == it.Interface {
			if mode == "explicit" && !old.Implicit {
				return errAt(pos, "interface cannot be %sed more than once", dirName[dir])
			}
			if mode != "implicit" && !it.Implicit && old.Implicit {
				old.Implicit, old.Docs, old.Gate = false, it.Docs, it.Gate
			}
			return nil
		}
		if mode == "include" {
			if sameItem(old, it) {
				return nil
			}
			return errAt(pos, "%s of `%s` shadows previously %sed items", dirName[dir], key, dirName[dir])
		}
		return errAt(pos, "%s `%s` conflicts with prior %s of same name", dirName[dir], key, itemKind(old))
	}
	if !it.ByPath {
		l := strings.ToLower(key)
		if other, ok := wb.lower[dir][l]; ok {
			return errAt(pos, "%s `%s` in world `%s` conflicts with %s `%s` (kebab-case identifiers are case-insensitive)", dirName[dir], key, wb.w.Name, dirName[dir], other)
		}
		wb.lower[dir][l] = key
	}
	wb.keys[dir][key] = it
	if dir == dirImport {
		wb.w.Imports = append(wb.w.Imports, it)
	} else {
		wb.w.Exports = append(wb.w.Exports, it)
	}
	return nil
}

// importDeps imports (implicitly) the interfaces i depends on.
func (wb *worldBuilder) importDeps(i *Interface, pos Position) error {
	for _, d := range i.Uses {
		if _, ok := wb.keys[dirImport][d.ID()]; ok {
			continue
		}
		if err := wb.importIface(d, pos, "implicit", "", nil); err != nil {
			return err
		}
	}
	return nil
}

// importIface imports an interface by ID after the interfaces it depends on.
func (wb *worldBuilder) importIface(i *Interface, pos Position, mode string, docs string, gate *Stability) error {
	if err := wb.importDeps(i, pos); err != nil {
		return err
	}
	if i.Name == "" {
		return nil
	}
	return wb.add(dirImport, &WorldItem{Name: i.ID(), Interface: i, ByPath: true, Implicit: mode == "implicit", Docs: docs, Gate: gate}, pos, mode)
}

func transitiveDeps(i *Interface, seen map[*Interface]bool) {
	for _, d := range i.Uses {
		if !seen[d] {
			seen[d] = true
			transitiveDeps(d, seen)
		}
	}
}

func (ps *pkgState) ensureWorld(ws *worldState) (*World, error) {
	a := ws.ast
	if build, err := ps.enter(&ws.state, a.name, a.gate, a.items, "world"); err != nil {
		return nil, err
	} else if !build {
		return ws.world, nil
	}
	w := &World{Name: a.name.name, Package: ps.pkg, Docs: a.docs, Gate: a.gate.stability()}
	if err := ps.fillWorld(w, ws.file, a); err != nil {
		return nil, err
	}
	ws.world = w
	ws.state = 2
	return w, nil
}

func (ps *pkgState) fillWorld(w *World, f *pkgFile, a *astWorld) error {
	wb := &worldBuilder{w: w}
	for d := 0; d < 2; d++ {
		wb.keys[d] = map[string]*WorldItem{}
		wb.lower[d] = map[string]string{}
	}
	owner := ps.id(a.name.name)
	sc := newScope(ps, f, owner)
	// Pass 1: the world's own names (types and uses).
	var uses = map[*astUse]*Interface{}
	for _, it := range a.items {
		switch x := it.(type) {
		case *astUse:
			if err := ps.checkSince(x.gate, x.pos); err != nil {
				return err
			}
			if !ps.r.active(x.gate) {
				// Its names stay defined, as an interface's gated-out
				// `use` (a name used twice is refused whatever the
				// features, as wasm-tools does).
				if err := sc.defineExcluded(x); err != nil {
					return err
				}
				continue
			}
			if err := sc.addUse(x); err != nil {
				return err
			}
			target, _ := ps.lookupIface(f, x.path)
			uses[x] = target
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
		}
	}
	if err := sc.resolveAll(); err != nil {
		return err
	}
	// Pass 2: imports and exports in order.
	// exportPos holds where each export came from (its `export` or the
	// `include` that brought it), for the errors of export elaboration.
	exportPos := map[*WorldItem]Position{}
	named := [2]map[string]bool{{}, {}}
	// noted is how many of w.Exports have their position: exports are
	// only appended, so those after it are the ones the last item
	// brought (each export once: a scan of all at each item was
	// quadratic, 4.4 s for a world of 10 000 exports).
	noted := 0
	notePos := func(pos Position) {
		for _, e := range w.Exports[noted:] {
			if _, ok := exportPos[e]; !ok {
				exportPos[e] = pos
			}
		}
		noted = len(w.Exports)
	}
	for _, it := range a.items {
		switch x := it.(type) {
		case *astUse:
			target := uses[x]
			if target == nil {
				continue
			}
			if err := wb.importIface(target, x.pos, "implicit", "", nil); err != nil {
				return err
			}
			for _, n := range x.names {
				local := n.name
				if n.as != nil {
					local = *n.as
				}
				e := sc.names[local.name]
				if err := wb.add(dirImport, &WorldItem{Name: local.name, Type: e.def, Gate: x.gate.stability()}, local.pos, "explicit"); err != nil {
					return err
				}
			}
		case *astTypeDef:
			if !ps.r.active(x.gate) {
				continue
			}
			e := sc.names[x.name.name]
			if err := wb.add(dirImport, &WorldItem{Name: x.name.name, Type: e.def, Docs: x.docs, Gate: x.gate.stability()}, x.name.pos, "explicit"); err != nil {
				return err
			}
		case *astWorldItem:
			pos := x.name.pos
			if x.name.name == "" && x.path != nil {
				pos = x.path.name.pos
			}
			if err := ps.checkSince(x.gate, pos); err != nil {
				return err
			}
			dir := dirImport
			if x.export {
				dir = dirExport
			}
			// Two items of one name conflict whatever their gates, as
			// in wasm-tools: the world must not change meaning when a
			// feature is turned on.
			if n := x.name.name; n != "" {
				if named[dir][n] {
					return errAt(pos, "%s `%s` is defined more than once", dirName[dir], n)
				}
				named[dir][n] = true
			}
			if !ps.r.active(x.gate) {
				continue
			}
			item := &WorldItem{Name: x.name.name, Docs: x.docs, Gate: x.gate.stability()}
			switch {
			case x.fn != nil:
				fn, err := sc.resolveFunc(x.fn, FuncFree, nil, x.name.name)
				if err != nil {
					return err
				}
				item.Func = fn
			case x.iface != nil:
				iface := &Interface{Package: ps.pkg, Docs: x.docs, Gate: x.gate.stability()}
				if err := ps.fillInterface(iface, f, x.iface.items, owner+"#"+x.name.name); err != nil {
					return err
				}
				item.Interface = iface
			default:
				iface, err := ps.lookupIface(f, *x.path)
				if err != nil {
					return err
				}
				item.Interface = iface
				if x.name.name == "" {
					item.Name = iface.ID()
					item.ByPath = true
				}
			}
			if dir == dirImport && item.Interface != nil {
				if err := wb.importDeps(item.Interface, pos); err != nil {
					return err
				}
			}
			if err := wb.add(dir, item, pos, "explicit"); err != nil {
				return err
			}
			if dir == dirExport {
				notePos(pos)
			}
		case *astInclude:
			if err := ps.checkSince(x.gate, x.path.name.pos); err != nil {
				return err
			}
			if !ps.r.active(x.gate) {
				continue
			}
			inc, err := ps.lookupWorld(f, x.path)
			if err != nil {
				return err
			}
			if err := wb.include(inc, x); err != nil {
				return err
			}
			notePos(x.path.name.pos)
		}
	}
	// Export elaboration: what an export depends on is satisfied by another
	// export or else imported; an imported dependency may not itself depend
	// on an exported interface.
	exported := map[*Interface]bool{}
	for _, it := range w.Exports {
		if it.Interface != nil && it.Interface.Name != "" {
			exported[it.Interface] = true
		}
	}
	for _, it := range w.Exports {
		if it.Interface == nil {
			continue
		}
		pos := exportPos[it]
		for _, d := range it.Interface.Uses {
			if exported[d] {
				continue
			}
			deps := map[*Interface]bool{}
			transitiveDeps(d, deps)
			for x := range deps {
				if exported[x] {
					return errAt(pos, "interface `%s` transitively depends on an interface in incompatible ways", it.Name)
				}
			}
			if _, ok := wb.keys[dirImport][d.ID()]; !ok {
				if err := wb.importIface(d, pos, "implicit", "", nil); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// include merges the imports and exports of world inc, renaming plain names
// listed in `with`.
func (wb *worldBuilder) include(inc *World, x *astInclude) error {
	renames := map[string]string{}
	for _, wn := range x.with {
		found := false
		for _, list := range [][]*WorldItem{inc.Imports, inc.Exports} {
			for _, it := range list {
				if !it.ByPath && it.Name == wn.name.name {
					found = true
				}
			}
		}
		if !found {
			return errAt(x.path.name.pos, "no import or export kebab-name `%s`. Note that an ID does not support renaming", wn.name.name)
		}
		// The first rename of a name wins, as in wasm-tools (which finds
		// the item's rename in the list in order); the last one did, and
		// `with { x as y, x as z }` gave the world `z` where wasm-tools'
		// bindings have `y`.
		if _, dup := renames[wn.name.name]; !dup {
			renames[wn.name.name] = wn.as.name
		}
	}
	rn := newRenamer(wb.w.ID())
	for _, list := range [][]*WorldItem{inc.Imports, inc.Exports} {
		for _, it := range list {
			if n, ok := renames[it.Name]; ok && !it.ByPath && it.Type != nil && it.Type.From == nil && !it.Type.Alias {
				rn.rename(it.Type.Type, n)
			}
		}
	}
	rn.finish()
	for dir, list := range [][]*WorldItem{inc.Imports, inc.Exports} {
		for _, it := range list {
			c := *it
			if c.Type != nil {
				if t := rn.subst(c.Type.Type); t != c.Type.Type {
					td := *c.Type
					td.Type = t
					c.Type = &td
				}
			}
			if c.Func != nil {
				if f := rn.substFunc(c.Func); f != c.Func {
					c.Func = f
				}
			}
			if n, ok := renames[it.Name]; ok && !it.ByPath {
				c.Name = n
				if c.Type != nil {
					td := *c.Type
					td.Name = n
					c.Type = &td
				}
				if c.Func != nil {
					// As wasm-tools does: the function takes the new name.
					f := *c.Func
					f.Name = n
					c.Func = &f
				}
			}
			if err := wb.add(dir, &c, x.path.name.pos, "include"); err != nil {
				return err
			}
		}
	}
	return nil
}

// renamer gives an included world its own copies of the types that
// `include … with { r as s }` renames, and of the types and functions
// that refer to them: a renamed resource is another resource of the
// including world (wasm-tools clones the included world's types), named
// `s`, with members `[constructor]s`, `[method]s.m`, `[static]s.f`. The
// included world keeps its own.
type renamer struct {
	owner   string
	renamed map[*Type]string
	types   map[*Type]*Type
	res     map[*Resource]*Resource
}

func newRenamer(owner string) *renamer {
	return &renamer{owner: owner, renamed: map[*Type]string{}, types: map[*Type]*Type{}, res: map[*Resource]*Resource{}}
}

// rename records that the named type t is called n in the including world.
func (rn *renamer) rename(t *Type, n string) {
	if t == nil || t.Name == "" {
		return
	}
	rn.renamed[t] = n
	if t.Resource != nil && t.Kind == KindOwn {
		r := *t.Resource
		r.Name = n
		r.Owner = rn.owner
		rn.res[t.Resource] = &r
	}
}

// finish gives each renamed resource its members, renamed and with the
// renamed types in their signatures (a method's self is a borrow of the
// new resource).
func (rn *renamer) finish() {
	for old, r := range rn.res {
		r.Methods = make([]*Func, len(old.Methods))
		for i, m := range old.Methods {
			f := rn.substFunc(m)
			if f == m {
				cp := *m
				f = &cp
			}
			f.Name = renameMember(m.Name, old.Name, r.Name)
			r.Methods[i] = f
		}
	}
}

// renameMember renames the resource of a member name: `[method]r.m` with
// r renamed to s is `[method]s.m`, `[constructor]r` is `[constructor]s`.
func renameMember(name, from, to string) string {
	tag, rest, ok := strings.Cut(name, "]")
	if !ok {
		return name
	}
	if rest == from {
		return tag + "]" + to
	}
	if res, m, ok := strings.Cut(rest, "."); ok && res == from {
		return tag + "]" + to + "." + m
	}
	return name
}

// subst returns t with the renamed types replaced, t itself when it holds
// none of them.
func (rn *renamer) subst(t *Type) *Type {
	if t == nil || len(rn.renamed) == 0 {
		return t
	}
	if c, ok := rn.types[t]; ok {
		return c
	}
	c := *t
	n, changed := rn.renamed[t]
	if changed {
		c.Name = n
	}
	sub := func(p **Type) {
		if n := rn.subst(*p); n != *p {
			*p = n
			changed = true
		}
	}
	sub(&c.Elem)
	sub(&c.Key)
	sub(&c.Ok)
	sub(&c.Err)
	if len(t.Fields) > 0 {
		c.Fields = append([]Field(nil), t.Fields...)
		for i := range c.Fields {
			sub(&c.Fields[i].Type)
		}
	}
	if len(t.Cases) > 0 {
		c.Cases = append([]Case(nil), t.Cases...)
		for i := range c.Cases {
			sub(&c.Cases[i].Type)
		}
	}
	if len(t.Tuple) > 0 {
		c.Tuple = append([]*Type(nil), t.Tuple...)
		for i := range c.Tuple {
			sub(&c.Tuple[i])
		}
	}
	if r, ok := rn.res[t.Resource]; ok && t.Resource != nil {
		c.Resource = r
		changed = true
	}
	if !changed {
		rn.types[t] = t
		return t
	}
	if c.Name != "" {
		c.Owner = rn.owner
	}
	rn.types[t] = &c
	return &c
}

// substFunc returns f with the renamed types replaced in its params and
// result, f itself when it holds none of them.
func (rn *renamer) substFunc(f *Func) *Func {
	c := *f
	changed := false
	if len(f.Params) > 0 {
		c.Params = append([]Param(nil), f.Params...)
		for i := range c.Params {
			if t := rn.subst(c.Params[i].Type); t != c.Params[i].Type {
				c.Params[i].Type = t
				changed = true
			}
		}
	}
	if t := rn.subst(f.Result); t != f.Result {
		c.Result = t
		changed = true
	}
	if !changed {
		return f
	}
	return &c
}
