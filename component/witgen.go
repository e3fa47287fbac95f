package component

import (
	"github.com/aios-host/aios-host/wit"
)

// World rebuilds the component's WIT from its binary types: one world
// ("root:component/root") importing and exporting the component's
// interfaces (by path) and functions, and one package per interface's
// namespace. Type names come from the component's type exports; doc
// comments are not in the binary and are absent.
// It is built once; the result must not be modified.
func (p *Provider) World() *wit.Resolved {
	p.worldOnce.Do(func() { p.world = buildWorld(p.plan) })
	return p.world
}

func buildWorld(pl *plan) *wit.Resolved {
	root := &wit.Package{Name: wit.PackageName{Namespace: "root", Name: "component"}}
	world := &wit.World{Name: "root", Package: root}
	root.Worlds = []*wit.World{world}
	res := &wit.Resolved{Root: root}
	pkgs := map[string]*wit.Package{}
	// defined maps the named types of imported interfaces (a resource by
	// its *wit.Resource, another type by its *wit.Type) to where they are
	// defined: another interface naming one of them brings it in with
	// `use`, as WIT writes it. Each was defined again where it was named,
	// a resource with its methods, which name the defining interface's
	// types: the WIT did not parse ("type `stream-error` does not exist").
	type origin struct {
		in   *wit.Interface
		name string
	}
	defined := map[any]origin{}
	typeKey := func(t *wit.Type) any {
		if t.Kind == wit.KindOwn && t.Resource != nil {
			return t.Resource
		}
		return t
	}
	importing := true
	item := func(info ifaceInfo) *wit.WorldItem {
		if info.typ != nil {
			td := &wit.TypeDef{Name: info.typ.name, Type: info.typ.t}
			if o, ok := defined[typeKey(info.typ.t)]; ok {
				td.From, td.FromName = o.in, o.name
			}
			return &wit.WorldItem{Name: info.typ.name, Type: td}
		}
		if info.name == "" {
			return &wit.WorldItem{Name: info.funcs[0].Name, Func: info.funcs[0]}
		}
		in := &wit.Interface{}
		resources := map[string]*wit.Resource{}
		for _, nt := range info.types {
			if o, ok := defined[typeKey(nt.t)]; ok && o.in != in {
				in.Types = append(in.Types, &wit.TypeDef{Name: nt.name, Type: nt.t, From: o.in, FromName: o.name})
				continue
			}
			in.Types = append(in.Types, &wit.TypeDef{Name: nt.name, Type: nt.t})
			if importing {
				defined[typeKey(nt.t)] = origin{in, nt.name}
			}
			if nt.t.Kind == wit.KindOwn && nt.t.Resource != nil {
				resources[nt.name] = nt.t.Resource
			}
		}
		// Resource members ("[method]r.f", "[static]r.f", "[constructor]r")
		// go into their resource, as WIT writes them.
		for _, f := range info.funcs {
			kind, r, _, _ := wit.SplitMember(f.Name)
			if rs := resources[r]; kind != wit.FuncFree && rs != nil {
				m := *f
				m.Kind = kind
				rs.Methods = append(rs.Methods, &m)
				continue
			}
			in.Funcs = append(in.Funcs, f)
		}
		pn, name, err := wit.SplitID(info.name)
		if err != nil {
			in.Name = info.name
			in.Package = root
			root.Interfaces = append(root.Interfaces, in)
			return &wit.WorldItem{Name: info.name, Interface: in}
		}
		pk := pkgs[pn.String()]
		if pk == nil {
			pk = &wit.Package{Name: pn}
			pkgs[pn.String()] = pk
			res.Packages = append(res.Packages, pk)
		}
		// An interface both imported and exported (a middleware's) is
		// one interface of its package, as in WIT: it was added twice,
		// and the printed package did not parse ("duplicate item").
		for _, old := range pk.Interfaces {
			if old.Name == name {
				mergeInterface(old, in)
				return &wit.WorldItem{Name: info.name, Interface: old, ByPath: true}
			}
		}
		in.Name, in.Package = name, pk
		pk.Interfaces = append(pk.Interfaces, in)
		return &wit.WorldItem{Name: info.name, Interface: in, ByPath: true}
	}
	for _, info := range pl.witImports {
		world.Imports = append(world.Imports, item(info))
	}
	importing = false
	for _, info := range pl.witExports {
		world.Exports = append(world.Exports, item(info))
	}
	res.Packages = append(res.Packages, root)
	return res
}

// mergeInterface adds to in the types, functions and resource members of
// other (the same interface, imported and exported) it does not have.
func mergeInterface(in, other *wit.Interface) {
	types := map[string]*wit.TypeDef{}
	for _, td := range in.Types {
		types[td.Name] = td
	}
	for _, td := range other.Types {
		old, ok := types[td.Name]
		if !ok {
			in.Types = append(in.Types, td)
			continue
		}
		if r, o := old.Type.Resource, td.Type.Resource; old.Type.Kind == wit.KindOwn && td.Type.Kind == wit.KindOwn && r != nil && o != nil && r != o {
			r.Methods = appendMissing(r.Methods, o.Methods)
		}
	}
	in.Funcs = appendMissing(in.Funcs, other.Funcs)
}

// appendMissing appends to fs the functions of more whose names fs lacks.
func appendMissing(fs, more []*wit.Func) []*wit.Func {
	have := map[string]bool{}
	for _, f := range fs {
		have[f.Name] = true
	}
	for _, f := range more {
		if !have[f.Name] {
			fs = append(fs, f)
		}
	}
	return fs
}
