package wit

import (
	"strconv"
	"strings"
)

// maxTypeDepth bounds the nesting of anonymous types (list<list<...>>).
const maxTypeDepth = 100

type parser struct {
	lx   *lexer
	tok  token
	peek *token
}

// parseFile parses one WIT source file.
func parseFile(path, src string) (f *astFile, err error) {
	if err := checkUTF8(path, src); err != nil {
		return nil, err
	}
	p := &parser{lx: newLexer(path, src)}
	if err := p.adv(); err != nil {
		return nil, err
	}
	f = &astFile{path: path}
	seenPkg := false
	for p.tok.kind != tEOF {
		docs := p.tok.docs
		dpos := p.tok.pos
		gate, err := p.gates()
		if err != nil {
			return nil, err
		}
		if p.isKw("package") {
			if gate.set {
				return nil, errAt(gate.pos, "feature gates are not allowed on a package")
			}
			ppos := p.tok.pos
			if err := p.adv(); err != nil {
				return nil, err
			}
			name, err := p.pkgName()
			if err != nil {
				return nil, err
			}
			if p.isP(";") && !seenPkg && f.pkg == nil && len(f.items) == 0 && len(f.nested) == 0 {
				if err := p.adv(); err != nil {
					return nil, err
				}
				f.pkg = &name
				f.pkgDocs = docs
				f.docsPos = dpos
				seenPkg = true
				continue
			}
			if err := p.expectP("{"); err != nil {
				return nil, err
			}
			n := &astNested{name: name, docs: docs}
			for !p.isP("}") {
				if p.tok.kind == tEOF {
					return nil, p.unexpected("'}'")
				}
				idocs := p.tok.docs
				g, err := p.gates()
				if err != nil {
					return nil, err
				}
				if p.isKw("package") {
					return nil, errAt(p.tok.pos, "nested packages must be placed at the top-level")
				}
				it, err := p.topItem(idocs, g)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, it)
			}
			if err := p.adv(); err != nil {
				return nil, err
			}
			_ = ppos
			f.nested = append(f.nested, n)
			seenPkg = true
			continue
		}
		it, err := p.topItem(docs, gate)
		if err != nil {
			return nil, err
		}
		if len(f.items) == 0 {
			f.itemPos = dpos
		}
		f.items = append(f.items, it)
	}
	return f, nil
}

func (p *parser) adv() error {
	if p.peek != nil {
		p.tok = *p.peek
		p.peek = nil
		return nil
	}
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) peekTok() (token, error) {
	if p.peek == nil {
		t, err := p.lx.next()
		if err != nil {
			return t, err
		}
		p.peek = &t
	}
	return *p.peek, nil
}

func (p *parser) isP(s string) bool  { return p.tok.kind == tPunct && p.tok.text == s }
func (p *parser) isKw(s string) bool { return p.tok.kind == tKeyword && p.tok.text == s }

func (p *parser) unexpected(want string) error {
	return errAt(p.tok.pos, "expected %s, found %s", want, p.tok)
}

func (p *parser) expectP(s string) error {
	if !p.isP(s) {
		return p.unexpected("'" + s + "'")
	}
	return p.adv()
}

func (p *parser) expectKw(s string) error {
	if !p.isKw(s) {
		return p.unexpected("keyword `" + s + "`")
	}
	return p.adv()
}

func (p *parser) ident() (astName, error) {
	if p.tok.kind != tIdent {
		return astName{}, p.unexpected("an identifier")
	}
	n := astName{name: p.tok.text, pos: p.tok.pos}
	return n, p.adv()
}

// versionAfterAt scans a version; the '@' has been consumed and p.tok is the
// first token after it (not yet used).
func (p *parser) versionAfterAt() (string, error) {
	if p.peek != nil {
		return "", errAt(p.tok.pos, "internal: version after lookahead")
	}
	if p.tok.kind != tInt {
		return "", p.unexpected("a version")
	}
	p.lx.off, p.lx.line, p.lx.col = p.tok.off, p.tok.pos.Line, p.tok.pos.Col
	v, _, err := p.lx.version()
	if err != nil {
		return "", err
	}
	return v, p.adv()
}

// pkgName parses `ns:name@version` (nested namespaces join with ':').
func (p *parser) pkgName() (astPkgName, error) {
	pos := p.tok.pos
	first, err := p.ident()
	if err != nil {
		return astPkgName{}, err
	}
	if err := p.expectP(":"); err != nil {
		return astPkgName{}, err
	}
	name, err := p.nsName(first, pos)
	if err != nil {
		return astPkgName{}, err
	}
	if p.isP("/") {
		return name, errAt(p.tok.pos, "nested package names (`ns:pkg/sub`) are not supported")
	}
	name.version, err = p.optVersion()
	return name, err
}

// nsName parses the rest of `first:a:…:name` after `first:`: identifiers
// separated by ':'. The last is the name; the others, first included,
// join with ':' into the namespace.
func (p *parser) nsName(first astName, pos Position) (astPkgName, error) {
	parts := []string{first.name}
	for {
		n, err := p.ident()
		if err != nil {
			return astPkgName{}, err
		}
		parts = append(parts, n.name)
		if !p.isP(":") {
			break
		}
		if err := p.adv(); err != nil {
			return astPkgName{}, err
		}
	}
	last := len(parts) - 1
	return astPkgName{pos: pos, ns: strings.Join(parts[:last], ":"), name: parts[last]}, nil
}

// optVersion parses an optional `@version` ("" when p.tok is not '@').
func (p *parser) optVersion() (string, error) {
	if !p.isP("@") {
		return "", nil
	}
	if err := p.adv(); err != nil {
		return "", err
	}
	return p.versionAfterAt()
}

// gates parses any number of @since/@unstable/@deprecated/@external-id.
func (p *parser) gates() (astGate, error) {
	var g astGate
	for p.isP("@") {
		if !g.set {
			g.pos = p.tok.pos
		}
		if err := p.adv(); err != nil {
			return g, err
		}
		if p.tok.kind != tIdent {
			return g, p.unexpected("`since`, `unstable`, `deprecated` or `external-id`")
		}
		which := p.tok.text
		wpos := p.tok.pos
		if err := p.adv(); err != nil {
			return g, err
		}
		if err := p.expectP("("); err != nil {
			return g, err
		}
		field := func(want string) error {
			if p.tok.kind != tIdent {
				return p.unexpected("an identifier or string")
			}
			if p.tok.text != want {
				return errAt(p.tok.pos, "expected `%s`, found `%s`", want, p.tok.text)
			}
			if err := p.adv(); err != nil {
				return err
			}
			return p.expectP("=")
		}
		switch which {
		case "since", "deprecated":
			if err := field("version"); err != nil {
				return g, err
			}
			v, err := p.versionAfterAt()
			if err != nil {
				return g, err
			}
			if which == "since" {
				if g.since != "" || g.unstable != "" {
					return g, errAt(wpos, "@since may not be combined with another @since or @unstable")
				}
				g.since = v
				if p.isP(",") {
					if err := p.adv(); err != nil {
						return g, err
					}
					if err := field("feature"); err != nil {
						return g, err
					}
					n, err := p.ident()
					if err != nil {
						return g, err
					}
					g.sinceFeature = n.name
				}
			} else {
				if g.deprecated != "" {
					return g, errAt(wpos, "duplicate @deprecated")
				}
				g.deprecated = v
			}
		case "unstable":
			if err := field("feature"); err != nil {
				return g, err
			}
			n, err := p.ident()
			if err != nil {
				return g, err
			}
			if g.since != "" || g.unstable != "" {
				return g, errAt(wpos, "@unstable may not be combined with another @since or @unstable")
			}
			g.unstable = n.name
		case "external-id":
			if p.tok.kind != tString {
				return g, p.unexpected("a string literal")
			}
			if err := p.adv(); err != nil {
				return g, err
			}
			if err := p.expectP(")"); err != nil {
				return g, err
			}
			continue
		default:
			return g, errAt(wpos, "unknown attribute `@%s`: expected `since`, `unstable`, `deprecated` or `external-id`", which)
		}
		if err := p.expectP(")"); err != nil {
			return g, err
		}
		g.set = true
	}
	if g.deprecated != "" && g.since == "" && g.unstable == "" {
		return g, errAt(g.pos, "@deprecated must be paired with @since or @unstable")
	}
	return g, nil
}

func (p *parser) topItem(docs string, gate astGate) (any, error) {
	switch {
	case p.isKw("interface"):
		return p.iface(docs, gate)
	case p.isKw("world"):
		return p.world(docs, gate)
	case p.isKw("use"):
		if err := p.adv(); err != nil {
			return nil, err
		}
		path, err := p.usePath()
		if err != nil {
			return nil, err
		}
		u := &astTopUse{path: path, gate: gate}
		if p.isKw("as") {
			if err := p.adv(); err != nil {
				return nil, err
			}
			n, err := p.ident()
			if err != nil {
				return nil, err
			}
			u.as = &n
		}
		return u, p.expectP(";")
	}
	return nil, p.unexpected("`world`, `interface`, `use` or `package`")
}

// usePath parses `id` or `ns:pkg/iface@ver`.
func (p *parser) usePath() (astUsePath, error) {
	pos := p.tok.pos
	first, err := p.ident()
	if err != nil {
		return astUsePath{}, err
	}
	if !p.isP(":") {
		return astUsePath{name: first, pos: pos, plain: true}, nil
	}
	if err := p.adv(); err != nil {
		return astUsePath{}, err
	}
	return p.usePathRest(first, pos)
}

// usePathRest continues a foreign path after `ns:`.
func (p *parser) usePathRest(first astName, pos Position) (astUsePath, error) {
	pk, err := p.nsName(first, pos)
	if err != nil {
		return astUsePath{}, err
	}
	if err := p.expectP("/"); err != nil {
		return astUsePath{}, err
	}
	name, err := p.ident()
	if err != nil {
		return astUsePath{}, err
	}
	if p.isP("/") {
		return astUsePath{}, errAt(p.tok.pos, "nested package paths are not supported")
	}
	if pk.version, err = p.optVersion(); err != nil {
		return astUsePath{}, err
	}
	return astUsePath{pkg: &pk, name: name, pos: pos}, nil
}

func (p *parser) iface(docs string, gate astGate) (*astInterface, error) {
	if err := p.expectKw("interface"); err != nil {
		return nil, err
	}
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	it := &astInterface{name: name, docs: docs, gate: gate}
	it.items, err = p.ifaceBody()
	return it, err
}

func (p *parser) ifaceBody() ([]any, error) {
	if err := p.expectP("{"); err != nil {
		return nil, err
	}
	var items []any
	for !p.isP("}") {
		docs := p.tok.docs
		gate, err := p.gates()
		if err != nil {
			return nil, err
		}
		switch {
		case p.isKw("use"):
			u, err := p.use(gate)
			if err != nil {
				return nil, err
			}
			items = append(items, u)
		case p.tok.kind == tKeyword && isTypeDefKw(p.tok.text):
			td, err := p.typeDef(docs, gate)
			if err != nil {
				return nil, err
			}
			items = append(items, td)
		case p.tok.kind == tIdent:
			fn, err := p.namedFunc(docs, gate, false)
			if err != nil {
				return nil, err
			}
			items = append(items, fn)
		default:
			return nil, p.unexpected("`use`, a type definition, a function or '}'")
		}
	}
	return items, p.adv()
}

func isTypeDefKw(s string) bool {
	switch s {
	case "type", "record", "variant", "enum", "flags", "resource":
		return true
	}
	return false
}

func (p *parser) use(gate astGate) (*astUse, error) {
	pos := p.tok.pos
	if err := p.expectKw("use"); err != nil {
		return nil, err
	}
	path, err := p.usePath()
	if err != nil {
		return nil, err
	}
	u := &astUse{path: path, gate: gate, pos: pos}
	if err := p.expectP("."); err != nil {
		return nil, err
	}
	if err := p.expectP("{"); err != nil {
		return nil, err
	}
	for !p.isP("}") {
		n, err := p.ident()
		if err != nil {
			return nil, err
		}
		un := astUseName{name: n}
		if p.isKw("as") {
			if err := p.adv(); err != nil {
				return nil, err
			}
			a, err := p.ident()
			if err != nil {
				return nil, err
			}
			un.as = &a
		}
		u.names = append(u.names, un)
		if !p.isP(",") {
			break
		}
		if err := p.adv(); err != nil {
			return nil, err
		}
	}
	if err := p.expectP("}"); err != nil {
		return nil, err
	}
	return u, p.expectP(";")
}

// namedFunc parses `name: [async] func(...) [-> T];` or, inside a resource,
// `name: static [async] func...`.
func (p *parser) namedFunc(docs string, gate astGate, inResource bool) (*astFunc, error) {
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	if err := p.expectP(":"); err != nil {
		return nil, err
	}
	fn := &astFunc{name: name, docs: docs, gate: gate, pos: name.pos}
	if inResource {
		fn.kind = FuncMethod
		if p.isKw("static") {
			fn.kind = FuncStatic
			if err := p.adv(); err != nil {
				return nil, err
			}
		}
	}
	if err := p.funcType(fn); err != nil {
		return nil, err
	}
	return fn, p.expectP(";")
}

func (p *parser) funcType(fn *astFunc) error {
	if p.isKw("async") {
		fn.async = true
		if err := p.adv(); err != nil {
			return err
		}
	}
	if err := p.expectKw("func"); err != nil {
		return err
	}
	if err := p.params(fn); err != nil {
		return err
	}
	if p.isP("->") {
		if err := p.adv(); err != nil {
			return err
		}
		t, err := p.typ(0)
		if err != nil {
			return err
		}
		fn.result = t
	}
	return nil
}

func (p *parser) params(fn *astFunc) error {
	if err := p.expectP("("); err != nil {
		return err
	}
	for !p.isP(")") {
		n, err := p.ident()
		if err != nil {
			return err
		}
		if err := p.expectP(":"); err != nil {
			return err
		}
		t, err := p.typ(0)
		if err != nil {
			return err
		}
		fn.params = append(fn.params, astParam{name: n, typ: t})
		if !p.isP(",") {
			break
		}
		if err := p.adv(); err != nil {
			return err
		}
	}
	return p.expectP(")")
}

func (p *parser) typeDef(docs string, gate astGate) (*astTypeDef, error) {
	kw := p.tok.text
	if err := p.adv(); err != nil {
		return nil, err
	}
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	td := &astTypeDef{name: name, docs: docs, gate: gate}
	switch kw {
	case "type":
		td.kind = tdAlias
		if err := p.expectP("="); err != nil {
			return nil, err
		}
		if td.alias, err = p.typ(0); err != nil {
			return nil, err
		}
		return td, p.expectP(";")
	case "resource":
		td.kind = tdResource
		if p.isP(";") {
			return td, p.adv()
		}
		td.hasBody = true
		if err := p.expectP("{"); err != nil {
			return nil, err
		}
		for !p.isP("}") {
			mdocs := p.tok.docs
			g, err := p.gates()
			if err != nil {
				return nil, err
			}
			if p.isKw("constructor") {
				fn := &astFunc{name: astName{name: "constructor", pos: p.tok.pos}, docs: mdocs, gate: g, kind: FuncConstructor, pos: p.tok.pos}
				if err := p.adv(); err != nil {
					return nil, err
				}
				if err := p.params(fn); err != nil {
					return nil, err
				}
				if p.isP("->") {
					if err := p.adv(); err != nil {
						return nil, err
					}
					if fn.result, err = p.typ(0); err != nil {
						return nil, err
					}
				}
				if err := p.expectP(";"); err != nil {
					return nil, err
				}
				td.members = append(td.members, fn)
				continue
			}
			if p.tok.kind != tIdent {
				return nil, p.unexpected("`constructor` or identifier")
			}
			fn, err := p.namedFunc(mdocs, g, true)
			if err != nil {
				return nil, err
			}
			td.members = append(td.members, fn)
		}
		if err := p.adv(); err != nil {
			return nil, err
		}
		// An optional ';' after a resource body is accepted.
		return td, nil
	}
	switch kw {
	case "record":
		td.kind = tdRecord
	case "variant":
		td.kind = tdVariant
	case "enum":
		td.kind = tdEnum
	case "flags":
		td.kind = tdFlags
	}
	if err := p.expectP("{"); err != nil {
		return nil, err
	}
	for !p.isP("}") {
		fdocs := p.tok.docs
		g, err := p.gates()
		if err != nil {
			return nil, err
		}
		n, err := p.ident()
		if err != nil {
			return nil, err
		}
		f := astField{name: n, docs: fdocs, gate: g}
		switch td.kind {
		case tdRecord:
			if err := p.expectP(":"); err != nil {
				return nil, err
			}
			if f.typ, err = p.typ(0); err != nil {
				return nil, err
			}
		case tdVariant:
			if p.isP("(") {
				if err := p.adv(); err != nil {
					return nil, err
				}
				if f.typ, err = p.typ(0); err != nil {
					return nil, err
				}
				if err := p.expectP(")"); err != nil {
					return nil, err
				}
			}
		}
		td.fields = append(td.fields, f)
		if !p.isP(",") {
			break
		}
		if err := p.adv(); err != nil {
			return nil, err
		}
	}
	if err := p.expectP("}"); err != nil {
		return nil, err
	}
	if td.kind == tdEnum && len(td.fields) == 0 {
		return nil, errAt(name.pos, "empty enum `%s`: an enum needs at least one case", name.name)
	}
	if td.kind == tdVariant && len(td.fields) == 0 {
		return nil, errAt(name.pos, "empty variant `%s`: a variant needs at least one case", name.name)
	}
	return td, nil
}

var primKinds = map[string]Kind{
	"bool": KindBool, "s8": KindS8, "u8": KindU8, "s16": KindS16, "u16": KindU16,
	"s32": KindS32, "u32": KindU32, "s64": KindS64, "u64": KindU64, "f32": KindF32,
	"f64": KindF64, "char": KindChar, "string": KindString,
}

// typ parses a type expression.
func (p *parser) typ(depth int) (*astType, error) {
	if depth > maxTypeDepth {
		return nil, errAt(p.tok.pos, "type nesting too deep (more than %d levels)", maxTypeDepth)
	}
	t := &astType{pos: p.tok.pos}
	if p.tok.kind == tIdent {
		t.kind = atNamed
		t.name = p.tok.text
		return t, p.adv()
	}
	if p.tok.kind != tKeyword {
		return nil, p.unexpected("a type")
	}
	kw := p.tok.text
	if k, ok := primKinds[kw]; ok {
		t.kind, t.prim = atPrim, k
		return t, p.adv()
	}
	if kw == "error-context" {
		t.kind, t.prim = atPrim, KindErrorContext
		return t, p.adv()
	}
	if err := p.adv(); err != nil {
		return nil, err
	}
	sub := func() (*astType, error) { return p.typ(depth + 1) }
	var err error
	switch kw {
	case "list":
		t.kind = atList
		if err := p.expectP("<"); err != nil {
			return nil, err
		}
		if t.elem, err = sub(); err != nil {
			return nil, err
		}
		if p.isP(",") {
			if err := p.adv(); err != nil {
				return nil, err
			}
			if p.tok.kind != tInt {
				return nil, p.unexpected("fixed-length")
			}
			n, perr := strconv.ParseUint(p.tok.text, 10, 32)
			if perr != nil || n == 0 {
				return nil, errAt(p.tok.pos, "invalid fixed-length %s: expected an integer in 1..4294967295", p.tok.text)
			}
			t.n = uint32(n)
			if err := p.adv(); err != nil {
				return nil, err
			}
		}
		return t, p.expectP(">")
	case "option", "own", "borrow":
		t.kind = map[string]astTypeKind{"option": atOption, "own": atOwn, "borrow": atBorrow}[kw]
		if err := p.expectP("<"); err != nil {
			return nil, err
		}
		if kw == "option" {
			if t.elem, err = sub(); err != nil {
				return nil, err
			}
		} else {
			if p.tok.kind != tIdent {
				return nil, p.unexpected("an identifier or string")
			}
			t.name = p.tok.text
			t.pos = p.tok.pos
			if err := p.adv(); err != nil {
				return nil, err
			}
		}
		return t, p.expectP(">")
	case "future", "stream":
		t.kind = atFuture
		if kw == "stream" {
			t.kind = atStream
		}
		if !p.isP("<") {
			return t, nil
		}
		if err := p.adv(); err != nil {
			return nil, err
		}
		if t.elem, err = sub(); err != nil {
			return nil, err
		}
		return t, p.expectP(">")
	case "result":
		t.kind = atResult
		if !p.isP("<") {
			return t, nil
		}
		if err := p.adv(); err != nil {
			return nil, err
		}
		if p.isP("_") {
			if err := p.adv(); err != nil {
				return nil, err
			}
			if err := p.expectP(","); err != nil {
				return nil, err
			}
			if t.err, err = sub(); err != nil {
				return nil, err
			}
			return t, p.expectP(">")
		}
		if t.elem, err = sub(); err != nil {
			return nil, err
		}
		if p.isP(",") {
			if err := p.adv(); err != nil {
				return nil, err
			}
			if t.err, err = sub(); err != nil {
				return nil, err
			}
		}
		return t, p.expectP(">")
	case "tuple":
		t.kind = atTuple
		if err := p.expectP("<"); err != nil {
			return nil, err
		}
		for !p.isP(">") {
			e, err := sub()
			if err != nil {
				return nil, err
			}
			t.elems = append(t.elems, e)
			if !p.isP(",") {
				break
			}
			if err := p.adv(); err != nil {
				return nil, err
			}
		}
		return t, p.expectP(">")
	case "map":
		t.kind = atMap
		if err := p.expectP("<"); err != nil {
			return nil, err
		}
		if t.key, err = sub(); err != nil {
			return nil, err
		}
		if err := p.expectP(","); err != nil {
			return nil, err
		}
		if t.elem, err = sub(); err != nil {
			return nil, err
		}
		return t, p.expectP(">")
	}
	return nil, errAt(t.pos, "expected a type, found keyword `%s`", kw)
}

func (p *parser) world(docs string, gate astGate) (*astWorld, error) {
	if err := p.expectKw("world"); err != nil {
		return nil, err
	}
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	w := &astWorld{name: name, docs: docs, gate: gate}
	if err := p.expectP("{"); err != nil {
		return nil, err
	}
	for !p.isP("}") {
		idocs := p.tok.docs
		g, err := p.gates()
		if err != nil {
			return nil, err
		}
		switch {
		case p.isKw("use"):
			u, err := p.use(g)
			if err != nil {
				return nil, err
			}
			w.items = append(w.items, u)
		case p.tok.kind == tKeyword && isTypeDefKw(p.tok.text):
			td, err := p.typeDef(idocs, g)
			if err != nil {
				return nil, err
			}
			w.items = append(w.items, td)
		case p.isKw("import") || p.isKw("export"):
			it, err := p.worldItem(idocs, g)
			if err != nil {
				return nil, err
			}
			w.items = append(w.items, it)
		case p.isKw("include"):
			inc, err := p.include(g)
			if err != nil {
				return nil, err
			}
			w.items = append(w.items, inc)
		default:
			return nil, p.unexpected("`import`, `export`, `include`, `use`, a type definition or '}'")
		}
	}
	return w, p.adv()
}

func (p *parser) worldItem(docs string, gate astGate) (*astWorldItem, error) {
	it := &astWorldItem{export: p.isKw("export"), docs: docs, gate: gate, pos: p.tok.pos}
	if err := p.adv(); err != nil {
		return nil, err
	}
	pos := p.tok.pos
	first, err := p.ident()
	if err != nil {
		return nil, err
	}
	if !p.isP(":") {
		// `import iface;`
		it.path = &astUsePath{name: first, pos: pos, plain: true}
		return it, p.expectP(";")
	}
	colon := p.tok
	if err := p.adv(); err != nil {
		return nil, err
	}
	switch {
	case p.isKw("func") || p.isKw("async"):
		it.name = first
		fn := &astFunc{name: first, docs: docs, gate: gate, pos: first.pos}
		if err := p.funcType(fn); err != nil {
			return nil, err
		}
		it.fn = fn
		return it, p.expectP(";")
	case p.isKw("interface"):
		it.name = first
		if err := p.adv(); err != nil {
			return nil, err
		}
		items, err := p.ifaceBody()
		if err != nil {
			return nil, err
		}
		it.iface = &astInterface{name: first, docs: docs, gate: gate, items: items}
		return it, nil
	case p.tok.kind == tIdent:
		second := p.tok
		nt, err := p.peekTok()
		if err != nil {
			return nil, err
		}
		if nt.kind == tPunct && nt.text == "/" {
			// `import ns:pkg/iface[@v];`
			path, err := p.usePathRest(first, pos)
			if err != nil {
				return nil, err
			}
			it.path = &path
			return it, p.expectP(";")
		}
		if nt.kind == tPunct && nt.text == ";" && !colon.spaceBefore && !second.spaceBefore {
			return nil, errAt(pos, "cannot import or export package `%s:%s`: name an interface (`ns:pkg/iface`) or add a space for `name: iface`", first.name, second.text)
		}
		// `import name: iface-path;`
		it.name = first
		path, err := p.usePath()
		if err != nil {
			return nil, err
		}
		it.path = &path
		return it, p.expectP(";")
	}
	return nil, p.unexpected("`func`, `async`, `interface` or an interface path")
}

func (p *parser) include(gate astGate) (*astInclude, error) {
	pos := p.tok.pos
	if err := p.expectKw("include"); err != nil {
		return nil, err
	}
	path, err := p.usePath()
	if err != nil {
		return nil, err
	}
	inc := &astInclude{path: path, gate: gate, pos: pos}
	if !p.isKw("with") {
		return inc, p.expectP(";")
	}
	if err := p.adv(); err != nil {
		return nil, err
	}
	if err := p.expectP("{"); err != nil {
		return nil, err
	}
	for !p.isP("}") {
		n, err := p.ident()
		if err != nil {
			return nil, err
		}
		if err := p.expectKw("as"); err != nil {
			return nil, err
		}
		a, err := p.ident()
		if err != nil {
			return nil, err
		}
		inc.with = append(inc.with, astUseName{name: n, as: &a})
		if !p.isP(",") {
			break
		}
		if err := p.adv(); err != nil {
			return nil, err
		}
	}
	if err := p.expectP("}"); err != nil {
		return nil, err
	}
	if p.isP(";") {
		return inc, p.adv()
	}
	return inc, nil
}
