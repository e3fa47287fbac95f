package wit

// The syntax tree produced by the parser and consumed by the resolver. It is
// unexported: callers see the resolved model.

type astName struct {
	name string
	pos  Position
}

type astPkgName struct {
	ns, name, version string
	pos               Position
}

func (n astPkgName) key() string {
	k := n.ns + ":" + n.name
	if n.version != "" {
		k += "@" + n.version
	}
	return k
}

type astGate struct {
	since, sinceFeature, unstable, deprecated string
	pos                                       Position
	set                                       bool
}

func (g astGate) stability() *Stability {
	if !g.set {
		return nil
	}
	return &Stability{Since: g.since, Feature: g.sinceFeature, Unstable: g.unstable, Deprecated: g.deprecated}
}

// astFile is one parsed .wit file.
type astFile struct {
	path    string
	pkg     *astPkgName // `package a:b;` header
	pkgDocs string
	docsPos Position
	items   []any // *astTopUse, *astInterface, *astWorld
	// itemPos is where the first top-level item starts (its gate or
	// keyword): a file without a `package` header is refused there.
	itemPos Position
	nested  []*astNested
}

type astNested struct {
	name  astPkgName
	docs  string
	items []any
}

// astUsePath is `iface` or `ns:pkg/iface@ver`.
type astUsePath struct {
	pkg   *astPkgName // nil for a local name
	name  astName     // interface (or world) name
	pos   Position
	plain bool // written as a bare identifier
}

func (u astUsePath) String() string {
	if u.pkg == nil {
		return u.name.name
	}
	s := u.pkg.ns + ":" + u.pkg.name + "/" + u.name.name
	if u.pkg.version != "" {
		s += "@" + u.pkg.version
	}
	return s
}

type astTopUse struct {
	path astUsePath
	as   *astName
	gate astGate
}

type astInterface struct {
	name  astName
	docs  string
	gate  astGate
	items []any // *astUse, *astTypeDef, *astFunc
}

type astUseName struct {
	name astName
	as   *astName
}

type astUse struct {
	path  astUsePath
	names []astUseName
	gate  astGate
	pos   Position
}

type typeDefKind uint8

const (
	tdAlias typeDefKind = iota
	tdRecord
	tdVariant
	tdEnum
	tdFlags
	tdResource
)

type astField struct {
	name astName
	typ  *astType // nil for a variant case without payload / enum / flags
	docs string
	gate astGate
}

type astTypeDef struct {
	kind    typeDefKind
	name    astName
	docs    string
	gate    astGate
	alias   *astType
	fields  []astField // record fields, variant cases, enum cases, flags
	members []*astFunc // resource members
	hasBody bool       // resource with { }
}

type astFunc struct {
	name   astName
	docs   string
	gate   astGate
	async  bool
	kind   FuncKind
	params []astParam
	result *astType
	pos    Position
}

type astParam struct {
	name astName
	typ  *astType
}

type astTypeKind uint8

const (
	atPrim astTypeKind = iota
	atNamed
	atList
	atOption
	atResult
	atTuple
	atBorrow
	atOwn
	atFuture
	atStream
	atMap
)

type astType struct {
	kind  astTypeKind
	prim  Kind
	name  string
	pos   Position
	elem  *astType   // list, option, future, stream, map value, result ok
	err   *astType   // result err
	key   *astType   // map key
	elems []*astType // tuple
	n     uint32     // fixed-size list
}

type astWorld struct {
	name  astName
	docs  string
	gate  astGate
	items []any // *astWorldItem, *astUse, *astTypeDef, *astInclude
}

type astWorldItem struct {
	export bool
	name   astName // plain name; empty for `import iface-path;`
	path   *astUsePath
	fn     *astFunc
	iface  *astInterface // inline interface
	docs   string
	gate   astGate
	pos    Position
}

type astInclude struct {
	path astUsePath
	with []astUseName
	gate astGate
	pos  Position
}
