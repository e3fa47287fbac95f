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
	item := func(info ifaceInfo) *wit.WorldItem {
		if info.typ != nil {
			return &wit.WorldItem{Name: info.typ.name, Type: &wit.TypeDef{Name: info.typ.name, Type: info.typ.t}}
		}
		if info.name == "" {
			return &wit.WorldItem{Name: info.funcs[0].Name, Func: info.funcs[0]}
		}
		in := &wit.Interface{}
		resources := map[string]*wit.Resource{}
		for _, nt := range info.types {
			in.Types = append(in.Types, &wit.TypeDef{Name: nt.name, Type: nt.t})
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
		in.Name, in.Package = name, pk
		pk.Interfaces = append(pk.Interfaces, in)
		return &wit.WorldItem{Name: info.name, Interface: in, ByPath: true}
	}
	for _, info := range pl.witImports {
		world.Imports = append(world.Imports, item(info))
	}
	for _, info := range pl.witExports {
		world.Exports = append(world.Exports, item(info))
	}
	res.Packages = append(res.Packages, root)
	return res
}
