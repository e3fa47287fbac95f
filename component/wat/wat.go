// Package wat reads the WebAssembly text format of components, for the
// part of it that describes types: a component whose fields are type
// definitions (value, function, component and instance types), aliases,
// imports and exports. That is the text form of a WIT package's binary
// encoding (`wasm-tools print` of a package, the deps/*.wat files of a WIT
// directory). It returns the same syntax tree as package binary, so one
// decoder reads both forms.
//
// Not read: core modules and core instances, canonical definitions,
// component and instance definitions (instantiate), start, values, and
// resource types with a destructor. Each is refused with its position.
// A top-level (@custom "name" "data"...) becomes a custom section (a WIT
// package's package-docs); other annotations, such as (@producers ...),
// are skipped.
package wat

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aios-host/aios-host/component/binary"
)

// maxDepth bounds the nesting of parentheses.
const maxDepth = 200

// maxItems bounds the definitions and declarations of one text.
const maxItems = 100_000

// Error is a syntax or scope error at a line and column.
type Error struct {
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// Parse reads a component in text form.
func Parse(src []byte) (*binary.Component, error) {
	if !utf8.Valid(src) {
		return nil, &Error{1, 1, "the text is not valid UTF-8"}
	}
	l := &lexer{src: string(src), line: 1, col: 1}
	root, err := l.list(0)
	if err != nil {
		return nil, err
	}
	if err := l.skipSpace(); err != nil {
		return nil, err
	}
	if l.pos < len(l.src) {
		return nil, l.errf("unexpected text after the component")
	}
	if len(root.kids) == 0 || root.kids[0].atom != "component" {
		return nil, root.errf("want (component ...)")
	}
	p := &parser{}
	s := &scope{top: true}
	rest := root.kids[1:]
	if len(rest) > 0 && rest[0].isID() {
		s.name = rest[0].atom
		rest = rest[1:]
	}
	for _, f := range rest {
		if err := p.field(f, s); err != nil {
			return nil, err
		}
	}
	return &binary.Component{Defs: s.defs}, nil
}

// ---- s-expressions ----

type node struct {
	line, col int
	list      bool
	kids      []*node
	atom      string // keyword, number or $id
	str       bool   // atom is a decoded string literal
}

func (n *node) errf(format string, args ...any) error {
	return &Error{n.line, n.col, fmt.Sprintf(format, args...)}
}

func (n *node) isID() bool { return !n.list && !n.str && strings.HasPrefix(n.atom, "$") }

// head is the keyword a list starts with ("" if none).
func (n *node) head() string {
	if !n.list || len(n.kids) == 0 || n.kids[0].list || n.kids[0].str {
		return ""
	}
	return n.kids[0].atom
}

func (n *node) describe() string {
	switch {
	case n.list:
		if h := n.head(); h != "" {
			return "(" + h + " ...)"
		}
		return "a list"
	case n.str:
		return strconv.Quote(n.atom)
	}
	return n.atom
}

type lexer struct {
	src       string
	pos       int
	line, col int
}

func (l *lexer) errf(format string, args ...any) error {
	return &Error{l.line, l.col, fmt.Sprintf(format, args...)}
}

func (l *lexer) advance(n int) {
	for i := 0; i < n; i++ {
		if l.src[l.pos] == '\n' {
			l.line, l.col = l.line+1, 1
		} else {
			l.col++
		}
		l.pos++
	}
}

// skipSpace skips white space, line comments and nested block comments.
func (l *lexer) skipSpace() error {
	for l.pos < len(l.src) {
		switch c := l.src[l.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.advance(1)
		case strings.HasPrefix(l.src[l.pos:], ";;"):
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.advance(1)
			}
		case strings.HasPrefix(l.src[l.pos:], "(;"):
			line, col := l.line, l.col
			depth := 0
			for {
				if l.pos >= len(l.src) {
					return &Error{line, col, "unterminated block comment"}
				}
				if strings.HasPrefix(l.src[l.pos:], "(;") {
					depth++
					l.advance(2)
				} else if strings.HasPrefix(l.src[l.pos:], ";)") {
					depth--
					l.advance(2)
					if depth == 0 {
						break
					}
				} else {
					l.advance(1)
				}
			}
		default:
			return nil
		}
	}
	return nil
}

// list reads a parenthesised list; the opening parenthesis is next.
func (l *lexer) list(depth int) (*node, error) {
	if err := l.skipSpace(); err != nil {
		return nil, err
	}
	if l.pos >= len(l.src) || l.src[l.pos] != '(' {
		return nil, l.errf("want '('")
	}
	if depth > maxDepth {
		return nil, l.errf("lists nested deeper than %d", maxDepth)
	}
	n := &node{line: l.line, col: l.col, list: true}
	l.advance(1)
	for {
		if err := l.skipSpace(); err != nil {
			return nil, err
		}
		if l.pos >= len(l.src) {
			return nil, &Error{n.line, n.col, "unclosed '('"}
		}
		switch c := l.src[l.pos]; c {
		case ')':
			l.advance(1)
			return n, nil
		case '(':
			k, err := l.list(depth + 1)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, k)
		case '"':
			k, err := l.str()
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, k)
		default:
			start := l.pos
			k := &node{line: l.line, col: l.col}
			for l.pos < len(l.src) && !strings.ContainsRune(" \t\r\n()\";", rune(l.src[l.pos])) {
				l.advance(1)
			}
			if l.pos == start {
				return nil, l.errf("unexpected %q", l.src[l.pos])
			}
			k.atom = l.src[start:l.pos]
			n.kids = append(n.kids, k)
		}
	}
}

// str reads a string literal with its escapes.
func (l *lexer) str() (*node, error) {
	n := &node{line: l.line, col: l.col, str: true}
	l.advance(1)
	var b strings.Builder
	for {
		if l.pos >= len(l.src) || l.src[l.pos] == '\n' {
			return nil, &Error{n.line, n.col, "unterminated string"}
		}
		c := l.src[l.pos]
		if c == '"' {
			l.advance(1)
			n.atom = b.String()
			if !utf8.ValidString(n.atom) {
				return nil, &Error{n.line, n.col, "a name is not valid UTF-8"}
			}
			return n, nil
		}
		if c != '\\' {
			b.WriteByte(c)
			l.advance(1)
			continue
		}
		if l.pos+1 >= len(l.src) {
			return nil, &Error{n.line, n.col, "unterminated string"}
		}
		e := l.src[l.pos+1]
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '"', '\'', '\\':
			b.WriteByte(e)
		case 'u':
			end := strings.IndexByte(l.src[l.pos:], '}')
			if l.pos+2 >= len(l.src) || l.src[l.pos+2] != '{' || end < 0 {
				return nil, l.errf(`bad \u{...} escape`)
			}
			v, err := strconv.ParseUint(strings.ReplaceAll(l.src[l.pos+3:l.pos+end], "_", ""), 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return nil, l.errf(`bad \u{...} escape`)
			}
			b.WriteRune(rune(v))
			l.advance(end + 1)
			continue
		default:
			if l.pos+2 >= len(l.src) {
				return nil, l.errf("bad escape")
			}
			v, err := strconv.ParseUint(l.src[l.pos+1:l.pos+3], 16, 8)
			if err != nil {
				return nil, l.errf(`bad escape \%c`, e)
			}
			b.WriteByte(byte(v))
			l.advance(3)
			continue
		}
		l.advance(2)
	}
}

// ---- components ----

// sorts with an index space here.
var sortOf = map[string]binary.Sort{
	"func": binary.SortFunc, "value": binary.SortValue, "type": binary.SortType,
	"component": binary.SortComponent, "instance": binary.SortInstance,
}

// scope is the top-level component or a component/instance type body.
type scope struct {
	parent *scope
	name   string // its $id, for outer aliases by name
	top    bool
	defs   []binary.Def  // top
	decls  []binary.Decl // type bodies
	count  [binary.SortInstance + 1]uint32
	ids    [binary.SortInstance + 1]map[string]uint32
}

func (s *scope) bind(sort binary.Sort, id *node) (uint32, error) {
	idx := s.count[sort]
	s.count[sort]++
	if id != nil {
		if s.ids[sort] == nil {
			s.ids[sort] = map[string]uint32{}
		}
		if _, dup := s.ids[sort][id.atom]; dup {
			return 0, id.errf("%s %s is defined twice", sort, id.atom)
		}
		s.ids[sort][id.atom] = idx
	}
	return idx, nil
}

// index resolves a number or $id in s's sort space.
func (s *scope) index(sort binary.Sort, n *node) (uint32, error) {
	if n.list || n.str {
		return 0, n.errf("want a %s index, got %s", sort, n.describe())
	}
	if n.isID() {
		i, ok := s.ids[sort][n.atom]
		if !ok {
			return 0, n.errf("unknown %s %s", sort, n.atom)
		}
		return i, nil
	}
	v, err := number(n)
	if err != nil {
		return 0, err
	}
	if v >= s.count[sort] {
		return 0, n.errf("%s index %d is out of range (%d defined)", sort, v, s.count[sort])
	}
	return v, nil
}

func number(n *node) (uint32, error) {
	s := strings.ReplaceAll(n.atom, "_", "")
	base := 10
	if strings.HasPrefix(s, "0x") {
		s, base = s[2:], 16
	}
	v, err := strconv.ParseUint(s, base, 32)
	if err != nil || n.list || n.str {
		return 0, n.errf("want a number or $id, got %s", n.describe())
	}
	return uint32(v), nil
}

type parser struct {
	items int
}

func (p *parser) count(n *node) error {
	p.items++
	if p.items > maxItems {
		return n.errf("more than %d definitions", maxItems)
	}
	return nil
}

// addType defines td in s and returns its index (id may be nil).
func (p *parser) addType(s *scope, td *binary.TypeDef, id *node, at *node) (uint32, error) {
	if err := p.count(at); err != nil {
		return 0, err
	}
	idx, err := s.bind(binary.SortType, id)
	if err != nil {
		return 0, err
	}
	if s.top {
		s.defs = append(s.defs, binary.Def{Kind: binary.DefType, Type: td})
	} else {
		s.decls = append(s.decls, binary.Decl{Kind: binary.DeclType, Type: td})
	}
	return idx, nil
}

// custom reads a top-level (@custom "name" [(before|after ...)] "data"...)
// annotation, as `wasm-tools print` writes a custom section (a WIT
// package's package-docs, say), into a custom section definition. Its
// data strings are concatenated; like every string here, they must be
// UTF-8 once their escapes are decoded.
func (p *parser) custom(f *node, s *scope) error {
	args := f.kids[1:]
	if len(args) == 0 || !args[0].str {
		return f.errf("(@custom) wants the section's name as a string first")
	}
	c := &binary.Custom{Name: args[0].atom}
	rest := args[1:]
	if len(rest) > 0 && rest[0].list {
		if h := rest[0].head(); h != "before" && h != "after" {
			return rest[0].errf("(@custom) placement wants (before ...) or (after ...), got %s", rest[0].describe())
		}
		rest = rest[1:]
	}
	for _, d := range rest {
		if !d.str {
			return d.errf("(@custom) data wants strings, got %s", d.describe())
		}
		c.Data = append(c.Data, d.atom...)
	}
	if c.Data == nil {
		c.Data = []byte{}
	}
	s.defs = append(s.defs, binary.Def{Kind: binary.DefCustom, Custom: c})
	return nil
}

// optID splits a leading $id off args.
func optID(args []*node) (*node, []*node) {
	if len(args) > 0 && args[0].isID() {
		return args[0], args[1:]
	}
	return nil, args
}

// field reads one field of the top-level component or one declaration of
// a component or instance type body.
func (p *parser) field(f *node, s *scope) error {
	if !f.list {
		return f.errf("want a field in parentheses, got %s", f.describe())
	}
	if len(f.kids) == 0 {
		return f.errf("empty list")
	}
	h := f.head()
	if h == "@custom" && s.top {
		return p.custom(f, s)
	}
	if strings.HasPrefix(h, "@") {
		return nil // an annotation: (@producers ...), (@name ...), a nested (@custom ...)
	}
	args := f.kids[1:]
	switch h {
	case "type":
		id, rest := optID(args)
		if len(rest) != 1 {
			return f.errf("(type) wants one type definition")
		}
		td, err := p.deftype(rest[0], s, id)
		if err != nil {
			return err
		}
		_, err = p.addType(s, td, id, f)
		return err
	case "alias":
		return p.alias(f, s)
	case "import":
		name, d, err := p.namedExtern(f, args, s)
		if err != nil {
			return err
		}
		if s.top {
			s.defs = append(s.defs, binary.Def{Kind: binary.DefImport, Import: &binary.Import{Name: name, Extern: d}})
		} else {
			s.decls = append(s.decls, binary.Decl{Kind: binary.DeclImport, Name: name, Extern: d})
		}
		return p.count(f)
	case "export":
		if s.top {
			return p.topExport(f, s)
		}
		id, rest := optID(args)
		if id != nil {
			return id.errf("an export declaration names its item inside its type: (export \"name\" (instance $x ...))")
		}
		name, d, err := p.namedExtern(f, rest, s)
		if err != nil {
			return err
		}
		s.decls = append(s.decls, binary.Decl{Kind: binary.DeclExport, Name: name, Extern: d})
		return p.count(f)
	case "core":
		return f.errf("core definitions (modules, instances, core types) are not read: this reads the type-only components that encode WIT packages")
	case "component", "instance", "func", "canon", "start", "value":
		return f.errf("(%s ...) definitions are not read: this reads the type-only components that encode WIT packages", h)
	}
	return f.errf("unknown field %s", f.describe())
}

// externName is a name string, or the older (interface "ns:pkg/i") form.
func externName(n *node) (string, error) {
	if n.str {
		return n.atom, nil
	}
	if n.head() == "interface" && len(n.kids) == 2 && n.kids[1].str {
		return n.kids[1].atom, nil
	}
	return "", n.errf("want a name string, got %s", n.describe())
}

// namedExtern reads the `"name" externdesc` of an import or an export
// declaration f.
//
// The name attribute (implements "ns:pkg/i"), which wasm-tools writes for a
// world's `import x: ns:pkg/i;`, is skipped, as the binary reader skips it.
func (p *parser) namedExtern(f *node, args []*node, s *scope) (string, binary.ExternDesc, error) {
	for len(args) > 2 && args[1].head() == "implements" {
		if len(args[1].kids) != 2 || !args[1].kids[1].str {
			return "", binary.ExternDesc{}, args[1].errf("(implements \"ns:pkg/i\")")
		}
		args = append(args[:1:1], args[2:]...)
	}
	if len(args) != 2 {
		if len(args) > 2 {
			return "", binary.ExternDesc{}, args[1].errf("(%s \"name\" externdesc): unexpected %s", f.head(), args[1].describe())
		}
		return "", binary.ExternDesc{}, f.errf("(%s \"name\" externdesc)", f.head())
	}
	name, err := externName(args[0])
	if err != nil {
		return "", binary.ExternDesc{}, err
	}
	d, err := p.externDesc(args[1], s)
	return name, d, err
}

// topExport reads (export $id? "name" (sort idx) externdesc?).
func (p *parser) topExport(f *node, s *scope) error {
	id, rest := optID(f.kids[1:])
	if len(rest) < 2 || len(rest) > 3 {
		return f.errf("(export $id? \"name\" (sort idx) type?)")
	}
	name, err := externName(rest[0])
	if err != nil {
		return err
	}
	ref := rest[1]
	sort, ok := sortOf[ref.head()]
	if !ok || len(ref.kids) != 2 {
		return ref.errf("want (func|value|type|component|instance idx), got %s", ref.describe())
	}
	idx, err := s.index(sort, ref.kids[1])
	if err != nil {
		return err
	}
	e := &binary.Export{Name: name, Ref: binary.SortIdx{Sort: sort, Idx: idx}}
	if len(rest) == 3 {
		d, err := p.externDesc(rest[2], s)
		if err != nil {
			return err
		}
		e.Extern = &d
	} else if _, err := s.bind(sort, id); err != nil {
		// An export defines a new index in its sort's space.
		return err
	}
	s.defs = append(s.defs, binary.Def{Kind: binary.DefExport, Export: e})
	return p.count(f)
}

// alias reads (alias export inst "name" (sort $id?)) or
// (alias outer outer idx (sort $id?)).
func (p *parser) alias(f *node, s *scope) error {
	args := f.kids[1:]
	if len(args) != 4 {
		return f.errf("(alias export instance \"name\" (sort)) or (alias outer count idx (sort))")
	}
	target := args[3]
	sort, ok := sortOf[target.head()]
	if !ok {
		return target.errf("want (type), (func), (instance) or (component), got %s", target.describe())
	}
	var id *node
	if len(target.kids) == 2 && target.kids[1].isID() {
		id = target.kids[1]
	} else if len(target.kids) != 1 {
		return target.errf("(%s $id?)", target.head())
	}
	a := &binary.Alias{Sort: sort}
	switch args[0].atom {
	case "export":
		a.Kind = binary.AliasExport
		inst, err := s.index(binary.SortInstance, args[1])
		if err != nil {
			return err
		}
		if !args[2].str {
			return args[2].errf("want the export's name string")
		}
		a.Instance, a.Name = inst, args[2].atom
	case "outer":
		if sort != binary.SortType && sort != binary.SortComponent {
			return target.errf("outer aliases are of types and components only")
		}
		a.Kind = binary.AliasOuter
		outer, count, err := outerScope(s, args[1])
		if err != nil {
			return err
		}
		idx, err := outer.index(sort, args[2])
		if err != nil {
			return err
		}
		a.Count, a.Idx = count, idx
	default:
		return args[0].errf("want export or outer, got %s", args[0].describe())
	}
	if _, err := s.bind(sort, id); err != nil {
		return err
	}
	if s.top {
		s.defs = append(s.defs, binary.Def{Kind: binary.DefAlias, Alias: a})
	} else {
		s.decls = append(s.decls, binary.Decl{Kind: binary.DeclAlias, Alias: a})
	}
	return p.count(f)
}

// outerScope finds the scope an outer alias counts out to.
func outerScope(s *scope, n *node) (*scope, uint32, error) {
	if n.isID() {
		count := uint32(0)
		for t := s; t != nil; t = t.parent {
			if t.name == n.atom {
				return t, count, nil
			}
			count++
		}
		return nil, 0, n.errf("no enclosing component or type is named %s", n.atom)
	}
	v, err := number(n)
	if err != nil {
		return nil, 0, err
	}
	t := s
	for i := uint32(0); i < v; i++ {
		if t.parent == nil {
			return nil, 0, n.errf("outer count %d goes past the outermost component", v)
		}
		t = t.parent
	}
	return t, v, nil
}

// externDesc reads an extern type: (func $id? (type i) | functype),
// (instance $id? (type i) | decls), (component $id? (type i) | decls),
// (type $id? (eq i) | (sub resource)).
func (p *parser) externDesc(n *node, s *scope) (binary.ExternDesc, error) {
	var d binary.ExternDesc
	h := n.head()
	sort, ok := sortOf[h]
	if !ok || sort == binary.SortValue {
		if h == "core" {
			return d, n.errf("core module imports and exports are not read")
		}
		return d, n.errf("want (func ...), (instance ...), (component ...) or (type ...), got %s", n.describe())
	}
	d.Sort = sort
	id, rest := optID(n.kids[1:])
	if sort == binary.SortType {
		if len(rest) != 1 {
			return d, n.errf("(type $id? (eq idx)) or (type $id? (sub resource))")
		}
		b := rest[0]
		switch {
		case b.head() == "eq" && len(b.kids) == 2:
			idx, err := s.index(binary.SortType, b.kids[1])
			if err != nil {
				return d, err
			}
			d.Idx = idx
		case b.head() == "sub" && len(b.kids) == 2 && b.kids[1].atom == "resource" && !b.kids[1].str:
			d.SubRes = true
		default:
			return d, b.errf("want (eq idx) or (sub resource), got %s", b.describe())
		}
		_, err := s.bind(binary.SortType, id)
		return d, err
	}
	if len(rest) == 1 && rest[0].head() == "type" && len(rest[0].kids) == 2 {
		idx, err := s.index(binary.SortType, rest[0].kids[1])
		if err != nil {
			return d, err
		}
		d.Idx = idx
	} else {
		// An inline type: defined just before, as the binary form does.
		inline := &node{line: n.line, col: n.col, list: true, kids: append([]*node{n.kids[0]}, rest...)}
		td, err := p.deftype(inline, s, nil)
		if err != nil {
			return d, err
		}
		if d.Idx, err = p.addType(s, td, nil, n); err != nil {
			return d, err
		}
	}
	_, err := s.bind(sort, id)
	return d, err
}

var prims = map[string]byte{
	"bool": binary.PrimBool, "s8": binary.PrimS8, "u8": binary.PrimU8, "s16": binary.PrimS16,
	"u16": binary.PrimU16, "s32": binary.PrimS32, "u32": binary.PrimU32, "s64": binary.PrimS64,
	"u64": binary.PrimU64, "f32": binary.PrimF32, "f64": binary.PrimF64, "float32": binary.PrimF32,
	"float64": binary.PrimF64, "char": binary.PrimChar, "string": binary.PrimString,
}

// valType reads a value type: a primitive, a type index, or an inline
// definition (defined in s just before its user).
func (p *parser) valType(n *node, s *scope) (*binary.ValType, error) {
	if !n.list {
		if n.str {
			return nil, n.errf("want a value type, got %s", n.describe())
		}
		if op, ok := prims[n.atom]; ok {
			return &binary.ValType{Prim: op}, nil
		}
		if n.atom == "error-context" {
			return &binary.ValType{Prim: binary.PrimErrorContext}, nil
		}
		idx, err := s.index(binary.SortType, n)
		if err != nil {
			return nil, err
		}
		return &binary.ValType{Idx: idx}, nil
	}
	switch n.head() {
	case "func", "component", "instance", "resource":
		return nil, n.errf("want a value type, got %s", n.describe())
	}
	td, err := p.deftype(n, s, nil)
	if err != nil {
		return nil, err
	}
	idx, err := p.addType(s, td, nil, n)
	if err != nil {
		return nil, err
	}
	return &binary.ValType{Idx: idx}, nil
}

func labels(args []*node) ([]string, error) {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if !a.str {
			return nil, a.errf("want a label string, got %s", a.describe())
		}
		out = append(out, a.atom)
	}
	return out, nil
}

// deftype reads a type definition. id is the $id it will get (for the
// outer aliases of a component or instance type body).
func (p *parser) deftype(n *node, s *scope, id *node) (*binary.TypeDef, error) {
	if !n.list {
		if op, ok := prims[n.atom]; ok && !n.str {
			return &binary.TypeDef{Kind: binary.TypePrim, Prim: op}, nil
		}
		if n.atom == "error-context" && !n.str {
			return &binary.TypeDef{Kind: binary.TypeErrorContext}, nil
		}
		return nil, n.errf("want a type definition, got %s", n.describe())
	}
	if len(n.kids) == 0 {
		return nil, n.errf("empty list")
	}
	h := n.head()
	args := n.kids[1:]
	td := &binary.TypeDef{}
	one := func(what string) (*binary.ValType, error) {
		if len(args) != 1 {
			return nil, n.errf("(%s T) wants one type", what)
		}
		return p.valType(args[0], s)
	}
	var err error
	switch h {
	case "record":
		td.Kind = binary.TypeRecord
		for _, f := range args {
			if f.head() != "field" || len(f.kids) != 3 || !f.kids[1].str {
				return nil, f.errf("want (field \"name\" type), got %s", f.describe())
			}
			vt, err := p.valType(f.kids[2], s)
			if err != nil {
				return nil, err
			}
			td.Labels = append(td.Labels, f.kids[1].atom)
			td.Types = append(td.Types, vt)
		}
	case "variant":
		td.Kind = binary.TypeVariant
		for _, c := range args {
			if c.head() != "case" {
				return nil, c.errf("want (case \"name\" type?), got %s", c.describe())
			}
			_, rest := optID(c.kids[1:])
			if len(rest) > 0 && rest[len(rest)-1].head() == "refines" {
				return nil, rest[len(rest)-1].errf("variant case refinements are not supported")
			}
			if len(rest) < 1 || len(rest) > 2 || !rest[0].str {
				return nil, c.errf("want (case \"name\" type?)")
			}
			var vt *binary.ValType
			if len(rest) == 2 {
				if vt, err = p.valType(rest[1], s); err != nil {
					return nil, err
				}
			}
			td.Labels = append(td.Labels, rest[0].atom)
			td.Types = append(td.Types, vt)
		}
	case "list":
		td.Kind = binary.TypeList
		if len(args) == 2 {
			if td.Len, err = number(args[1]); err != nil {
				return nil, err
			}
			if td.Len == 0 {
				return nil, args[1].errf("a fixed-length list has at least one element")
			}
			args = args[:1]
		}
		vt, err := one("list")
		if err != nil {
			return nil, err
		}
		td.Types = []*binary.ValType{vt}
	case "option":
		td.Kind = binary.TypeOption
		vt, err := one("option")
		if err != nil {
			return nil, err
		}
		td.Types = []*binary.ValType{vt}
	case "tuple":
		td.Kind = binary.TypeTuple
		for _, a := range args {
			vt, err := p.valType(a, s)
			if err != nil {
				return nil, err
			}
			td.Types = append(td.Types, vt)
		}
	case "flags", "enum":
		td.Kind = binary.TypeFlags
		if h == "enum" {
			td.Kind = binary.TypeEnum
		}
		if td.Labels, err = labels(args); err != nil {
			return nil, err
		}
	case "result":
		td.Kind = binary.TypeResult
		td.Types = []*binary.ValType{nil, nil}
		rest := args
		if len(rest) > 0 && rest[0].head() != "error" {
			if td.Types[0], err = p.valType(rest[0], s); err != nil {
				return nil, err
			}
			rest = rest[1:]
		}
		if len(rest) > 0 {
			e := rest[0]
			if e.head() != "error" || len(e.kids) != 2 {
				return nil, e.errf("want (error type), got %s", e.describe())
			}
			if td.Types[1], err = p.valType(e.kids[1], s); err != nil {
				return nil, err
			}
			rest = rest[1:]
		}
		if len(rest) > 0 {
			return nil, rest[0].errf("unexpected %s in (result ...)", rest[0].describe())
		}
	case "own", "borrow":
		td.Kind = binary.TypeOwn
		if h == "borrow" {
			td.Kind = binary.TypeBorrow
		}
		if len(args) != 1 {
			return nil, n.errf("(%s resource-type)", h)
		}
		if td.Idx, err = s.index(binary.SortType, args[0]); err != nil {
			return nil, err
		}
	case "stream", "future":
		td.Kind = binary.TypeStream
		if h == "future" {
			td.Kind = binary.TypeFuture
		}
		var vt *binary.ValType
		if len(args) == 1 {
			if vt, err = p.valType(args[0], s); err != nil {
				return nil, err
			}
		} else if len(args) > 1 {
			return nil, n.errf("(%s T?)", h)
		}
		td.Types = []*binary.ValType{vt}
	case "map":
		td.Kind = binary.TypeMap
		if len(args) != 2 {
			return nil, n.errf("(map K V)")
		}
		k, err := p.valType(args[0], s)
		if err != nil {
			return nil, err
		}
		v, err := p.valType(args[1], s)
		if err != nil {
			return nil, err
		}
		td.Types = []*binary.ValType{k, v}
	case "func":
		td.Kind = binary.TypeFunc
		if len(args) > 0 && !args[0].list && args[0].atom == "async" {
			td.Async = true
			args = args[1:]
		}
		for i, a := range args {
			switch a.head() {
			case "param":
				if len(a.kids) != 3 || !a.kids[1].str {
					return nil, a.errf("want (param \"name\" type), got %s", a.describe())
				}
				vt, err := p.valType(a.kids[2], s)
				if err != nil {
					return nil, err
				}
				td.Labels = append(td.Labels, a.kids[1].atom)
				td.Types = append(td.Types, vt)
			case "result":
				if i != len(args)-1 || len(a.kids) != 2 || a.kids[1].str {
					return nil, a.errf("want one trailing (result type)")
				}
				if td.Result, err = p.valType(a.kids[1], s); err != nil {
					return nil, err
				}
			default:
				return nil, a.errf("want (param ...) or (result ...), got %s", a.describe())
			}
		}
	case "component", "instance":
		td.Kind = binary.TypeComponent
		if h == "instance" {
			td.Kind = binary.TypeInstance
		}
		body := &scope{parent: s}
		if id != nil {
			body.name = id.atom
		}
		for _, d := range args {
			if h == "instance" && d.head() == "import" {
				return nil, d.errf("an instance type has no imports")
			}
			if err := p.field(d, body); err != nil {
				return nil, err
			}
		}
		td.Decls = body.decls
	case "resource":
		td.Kind = binary.TypeResource
		for _, a := range args {
			switch a.head() {
			case "rep":
				if len(a.kids) != 2 || a.kids[1].atom != "i32" {
					return nil, a.errf("want (rep i32)")
				}
			default:
				return nil, a.errf("resource types with %s are not read", a.describe())
			}
		}
	default:
		return nil, n.errf("unknown type definition %s", n.describe())
	}
	return td, nil
}
