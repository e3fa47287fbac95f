package wit

// PackageName is `namespace:name@version` (Version may be empty).
type PackageName struct {
	Namespace, Name, Version string
}

func (n PackageName) String() string {
	s := n.Namespace + ":" + n.Name
	if n.Version != "" {
		s += "@" + n.Version
	}
	return s
}

// Resolved is a resolved set of WIT packages: the root package and every
// package it was parsed with (nested packages and deps/), in dependency order
// (a package comes after every package it refers to).
type Resolved struct {
	Packages []*Package
	Root     *Package
}

// Package returns the package with the given `ns:name[@version]`, or nil.
func (r *Resolved) Package(name string) *Package {
	for _, p := range r.Packages {
		if p.Name.String() == name {
			return p
		}
	}
	return nil
}

// Package is a resolved WIT package.
type Package struct {
	Name       PackageName
	Docs       string
	Interfaces []*Interface
	Worlds     []*World
}

// Interface returns the named interface or nil.
func (p *Package) Interface(name string) *Interface {
	for _, i := range p.Interfaces {
		if i.Name == name {
			return i
		}
	}
	return nil
}

// World returns the named world or nil.
func (p *Package) World(name string) *World {
	for _, w := range p.Worlds {
		if w.Name == name {
			return w
		}
	}
	return nil
}

// Interface is a resolved interface. Name is empty for an interface written
// inline in a world (`import x: interface { ... }`).
type Interface struct {
	Name    string
	Package *Package
	Docs    string
	Gate    *Stability
	// Types lists the interface's named types in declaration order: `use`d
	// types (From set), aliases (Alias set) and definitions.
	Types []*TypeDef
	// Funcs lists the free functions; resource members are in
	// Type.Resource.Methods.
	Funcs []*Func
	// Uses lists the interfaces this one takes types from, in order.
	Uses []*Interface

	id string // cached ID
}

// ID is the interface's full name, `ns:pkg/name@version`, or "" when inline.
func (i *Interface) ID() string {
	if i.Name == "" || i.Package == nil {
		return ""
	}
	if i.id != "" {
		return i.id
	}
	n := i.Package.Name
	s := n.Namespace + ":" + n.Name + "/" + i.Name
	if n.Version != "" {
		s += "@" + n.Version
	}
	return s
}

// Func returns the named free function or nil.
func (i *Interface) Func(name string) *Func {
	for _, f := range i.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Type returns the named type definition or nil.
func (i *Interface) Type(name string) *TypeDef {
	for _, t := range i.Types {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// TypeDef is a named type in an interface or world.
type TypeDef struct {
	Name string
	Type *Type
	Docs string
	Gate *Stability
	// Alias is true for `type name = T` (Type is then T itself, shared).
	Alias bool
	// From and FromName are set for a type brought in by `use From.{FromName as Name}`.
	From     *Interface
	FromName string
}

// World is a resolved world, after `include` elaboration and the implicit
// import of interfaces that its imports and exports depend on.
type World struct {
	Name    string
	Package *Package
	Docs    string
	Gate    *Stability
	Imports []*WorldItem
	Exports []*WorldItem
}

// ID is the world's full name `ns:pkg/name@version`.
func (w *World) ID() string {
	n := w.Package.Name
	s := n.Namespace + ":" + n.Name + "/" + w.Name
	if n.Version != "" {
		s += "@" + n.Version
	}
	return s
}

// WorldItem is one import or export of a world. Exactly one of Interface,
// Func and Type is set. Name is the plain name (`import x: ...`) or, for an
// interface imported or exported by path, the interface ID.
type WorldItem struct {
	Name      string
	Interface *Interface
	Func      *Func
	Type      *TypeDef
	Docs      string
	Gate      *Stability
	// Implicit is true for an interface import added because another item
	// depends on it.
	Implicit bool
	// ByPath is true when the interface was named by path (`import wasi:io/streams;`).
	ByPath bool
}
