package binary

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

var (
	magic          = []byte{0x00, 0x61, 0x73, 0x6d}
	componentLayer = []byte{0x01, 0x00}
)

// IsComponent reports whether b starts with a component preamble (any
// pre-standard version), as opposed to a core module.
func IsComponent(b []byte) bool {
	return len(b) >= 8 && bytes.Equal(b[:4], magic) && bytes.Equal(b[6:8], componentLayer)
}

// SupportedVersion is the component binary version the reader accepts.
const SupportedVersion = 0x0d

// ErrNotComponent is returned by Parse for a core module or other data.
var ErrNotComponent = errors.New("not a WebAssembly component")

// Error is a parse error naming where it happened.
type Error struct {
	Where  string // "section 7 (type) item 2"
	Offset int
	Msg    string
}

func (e *Error) Error() string {
	if e.Where == "" {
		return fmt.Sprintf("component binary at offset %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("component binary %s at offset %d: %s", e.Where, e.Offset, e.Msg)
}

// maxDepth bounds nesting of components and types.
const maxDepth = 32

// MaxItems bounds the vector items of one component binary, nested
// components included: definitions, type declarations, fields, cases,
// labels, arguments, options. The reader and the linker keep a few hundred
// bytes of host memory per item: a 24 MB component of 5 M type
// definitions took 4 GB and 23 s to refuse. Real components have a few
// hundred (the samples: at most 1,500) and WASI's encoded WIT packages a few
// thousand.
const MaxItems = 100_000

// Parse parses a component binary.
func Parse(b []byte) (*Component, error) {
	if !IsComponent(b) {
		return nil, ErrNotComponent
	}
	return parseComponent(b, 0, 0, new(int))
}

type reader struct {
	b     []byte
	pos   int
	base  int // offset of b[0] in the whole file
	where string
	depth int
	items *int // vector items read so far in the whole binary (MaxItems)
}

func (r *reader) fail(format string, args ...any) error {
	return &Error{Where: r.where, Offset: r.base + r.pos, Msg: fmt.Sprintf(format, args...)}
}

func (r *reader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, r.fail("unexpected end of data")
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

func (r *reader) peek() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, r.fail("unexpected end of data")
	}
	return r.b[r.pos], nil
}

func (r *reader) u32() (uint32, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 35 {
			return 0, r.fail("LEB128 u32 too long")
		}
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			break
		}
	}
	if v > 0xFFFFFFFF {
		return 0, r.fail("LEB128 value %d overflows u32", v)
	}
	return uint32(v), nil
}

// count reads a vector length, refusing lengths that cannot fit the rest of the data.
func (r *reader) count() (int, error) {
	n, err := r.u32()
	if err != nil {
		return 0, err
	}
	if int(n) > len(r.b)-r.pos {
		return 0, r.fail("vector of %d items is longer than the remaining %d bytes", n, len(r.b)-r.pos)
	}
	if *r.items += int(n); *r.items > MaxItems {
		return 0, r.fail("the component has more than %d items (definitions, type declarations, fields, cases, names, arguments): it is refused before the host spends memory on them", MaxItems)
	}
	return int(n), nil
}

func (r *reader) bytes(n int) ([]byte, error) {
	if n < 0 || n > len(r.b)-r.pos {
		return nil, r.fail("need %d bytes, %d remain", n, len(r.b)-r.pos)
	}
	s := r.b[r.pos : r.pos+n]
	r.pos += n
	return s, nil
}

func (r *reader) name() (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	b, err := r.bytes(int(n))
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", r.fail("name is not valid UTF-8")
	}
	return string(b), nil
}

var sectionNames = [...]string{"custom", "core module", "core instance", "core type", "component",
	"instance", "alias", "type", "canon", "start", "import", "export", "value"}

func parseComponent(b []byte, base, depth int, items *int) (*Component, error) {
	if depth > maxDepth {
		return nil, &Error{Offset: base, Msg: fmt.Sprintf("components nested deeper than %d", maxDepth)}
	}
	if len(b) < 8 || !bytes.Equal(b[:4], magic) || !bytes.Equal(b[6:8], componentLayer) {
		return nil, &Error{Offset: base, Msg: "bad component preamble"}
	}
	if b[4] != SupportedVersion || b[5] != 0 {
		return nil, &Error{Offset: base + 4, Msg: fmt.Sprintf("unsupported component binary version %#x (this reader supports %#x)", b[4], SupportedVersion)}
	}
	c := &Component{}
	r := &reader{b: b, pos: 8, base: base, depth: depth, items: items}
	for sec := 0; r.pos < len(b); sec++ {
		r.where = ""
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, err
		}
		body, err := r.bytes(int(size))
		if err != nil {
			return nil, &Error{Offset: base + r.pos, Msg: fmt.Sprintf("section %d (id %d) of %d bytes is truncated", sec, id, size)}
		}
		name := "unknown"
		if int(id) < len(sectionNames) {
			name = sectionNames[id]
		}
		sr := &reader{b: body, base: base + r.pos - len(body), where: fmt.Sprintf("section %d (%s)", sec, name), depth: depth, items: items}
		if err := sr.section(c, id, sec, name); err != nil {
			return nil, err
		}
		if sr.pos != len(body) {
			return nil, sr.fail("%d trailing bytes in section", len(body)-sr.pos)
		}
	}
	return c, nil
}

func (r *reader) section(c *Component, id byte, sec int, name string) error {
	add := func(d Def) { c.Defs = append(c.Defs, d) }
	where := func(i int) string { return fmt.Sprintf("section %d (%s) item %d", sec, name, i) }
	switch id {
	case 0:
		n, err := r.name()
		if err != nil {
			return err
		}
		add(Def{Kind: DefCustom, Where: where(0), Custom: &Custom{Name: n, Data: r.b[r.pos:]}})
		r.pos = len(r.b)
		return nil
	case 1:
		if len(r.b) < 8 || !bytes.Equal(r.b[:4], magic) || r.b[4] != 1 || r.b[5] != 0 || r.b[6] != 0 || r.b[7] != 0 {
			return r.fail("core module does not start with the core wasm preamble")
		}
		add(Def{Kind: DefCoreModule, Where: where(0), CoreModule: r.b})
		r.pos = len(r.b)
		return nil
	case 4:
		nc, err := parseComponent(r.b, r.base, r.depth+1, r.items)
		if err != nil {
			return fmt.Errorf("%s: nested component: %w", r.where, err)
		}
		add(Def{Kind: DefComponent, Where: where(0), Component: nc})
		r.pos = len(r.b)
		return nil
	case 9:
		return r.fail("start definitions (value imports) are not supported")
	case 12:
		return r.fail("value definitions are not supported")
	}
	if id > 12 {
		return r.fail("unknown section id %d", id)
	}
	n, err := r.count()
	if err != nil {
		return err
	}
	outer := r.where
	for i := 0; i < n; i++ {
		r.where = fmt.Sprintf("%s item %d", outer, i)
		d := Def{Where: r.where}
		var err error
		switch id {
		case 2:
			d.Kind = DefCoreInstance
			d.CoreInstance, err = r.coreInstance()
		case 3:
			d.Kind = DefCoreType
			d.Type, err = r.coreType()
		case 5:
			d.Kind = DefInstance
			d.Instance, err = r.instance()
		case 6:
			d.Kind = DefAlias
			d.Alias, err = r.alias()
		case 7:
			d.Kind = DefType
			d.Type, err = r.typeDef(0)
		case 8:
			d.Kind = DefCanon
			d.Canon, err = r.canon()
		case 10:
			d.Kind = DefImport
			var imp Import
			if imp.Name, err = r.externName(); err == nil {
				imp.Extern, err = r.externDesc()
			}
			d.Import = &imp
		case 11:
			d.Kind = DefExport
			d.Export, err = r.export()
		}
		if err != nil {
			return err
		}
		add(d)
	}
	r.where = outer
	return nil
}

func (r *reader) coreSort() (CoreSort, error) {
	c, err := r.byte()
	if err != nil {
		return 0, err
	}
	switch CoreSort(c) {
	case CSFunc, CSTable, CSMemory, CSGlobal, CSTag, CSType, CSModule, CSInstance:
		return CoreSort(c), nil
	}
	return 0, r.fail("unknown core sort %#x", c)
}

func (r *reader) sort() (Sort, CoreSort, error) {
	c, err := r.byte()
	if err != nil {
		return 0, 0, err
	}
	switch c {
	case 0x00:
		cs, err := r.coreSort()
		return SortCore, cs, err
	case 0x01, 0x02, 0x03, 0x04, 0x05:
		return Sort(c), 0, nil
	}
	return 0, 0, r.fail("unknown sort %#x", c)
}

func (r *reader) sortIdx() (SortIdx, error) {
	s, cs, err := r.sort()
	if err != nil {
		return SortIdx{}, err
	}
	i, err := r.u32()
	return SortIdx{Sort: s, CoreSort: cs, Idx: i}, err
}

func (r *reader) coreInstance() (*CoreInstance, error) {
	k, err := r.byte()
	if err != nil {
		return nil, err
	}
	ci := &CoreInstance{}
	switch k {
	case 0x00:
		ci.Instantiate = true
		if ci.Module, err = r.u32(); err != nil {
			return nil, err
		}
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			name, err := r.name()
			if err != nil {
				return nil, err
			}
			s, err := r.byte()
			if err != nil {
				return nil, err
			}
			if s != 0x12 {
				return nil, r.fail("core instantiate argument %q has sort %#x, want instance (0x12)", name, s)
			}
			idx, err := r.u32()
			if err != nil {
				return nil, err
			}
			ci.Args = append(ci.Args, CoreArg{Name: name, Instance: idx})
		}
	case 0x01:
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			name, err := r.name()
			if err != nil {
				return nil, err
			}
			s, err := r.coreSort()
			if err != nil {
				return nil, err
			}
			idx, err := r.u32()
			if err != nil {
				return nil, err
			}
			ci.Exports = append(ci.Exports, CoreExport{Name: name, Sort: s, Idx: idx})
		}
	default:
		return nil, r.fail("unknown core instance expression %#x", k)
	}
	return ci, nil
}

func (r *reader) instance() (*Instance, error) {
	k, err := r.byte()
	if err != nil {
		return nil, err
	}
	in := &Instance{}
	switch k {
	case 0x00:
		in.Instantiate = true
		if in.Component, err = r.u32(); err != nil {
			return nil, err
		}
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			name, err := r.name()
			if err != nil {
				return nil, err
			}
			si, err := r.sortIdx()
			if err != nil {
				return nil, err
			}
			in.Args = append(in.Args, Arg{Name: name, Ref: si})
		}
	case 0x01:
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			name, err := r.externName()
			if err != nil {
				return nil, err
			}
			si, err := r.sortIdx()
			if err != nil {
				return nil, err
			}
			in.Exports = append(in.Exports, Arg{Name: name, Ref: si})
		}
	default:
		return nil, r.fail("unknown instance expression %#x", k)
	}
	return in, nil
}

func (r *reader) alias() (*Alias, error) {
	s, cs, err := r.sort()
	if err != nil {
		return nil, err
	}
	a := &Alias{Sort: s, CoreSort: cs}
	k, err := r.byte()
	if err != nil {
		return nil, err
	}
	switch k {
	case 0x00, 0x01:
		a.Kind = AliasExport
		if k == 0x01 {
			a.Kind = AliasCoreExport
			if s != SortCore {
				return nil, r.fail("core export alias of non-core sort %s", s)
			}
		}
		if a.Instance, err = r.u32(); err != nil {
			return nil, err
		}
		if a.Name, err = r.name(); err != nil {
			return nil, err
		}
	case 0x02:
		a.Kind = AliasOuter
		if a.Count, err = r.u32(); err != nil {
			return nil, err
		}
		if a.Idx, err = r.u32(); err != nil {
			return nil, err
		}
	default:
		return nil, r.fail("unknown alias target %#x", k)
	}
	return a, nil
}

// externName reads nameattributes: 0x00/0x01 name, or 0x02 name + attributes.
func (r *reader) externName() (string, error) {
	k, err := r.byte()
	if err != nil {
		return "", err
	}
	switch k {
	case 0x00, 0x01:
		return r.name()
	case 0x02:
		n, err := r.name()
		if err != nil {
			return "", err
		}
		cnt, err := r.count()
		if err != nil {
			return "", err
		}
		for i := 0; i < cnt; i++ {
			ak, err := r.byte()
			if err != nil {
				return "", err
			}
			switch ak {
			case 0x00, 0x01, 0x02:
				if _, err := r.name(); err != nil {
					return "", err
				}
			default:
				return "", r.fail("unknown name attribute %#x", ak)
			}
		}
		return n, nil
	}
	return "", r.fail("unknown extern name form %#x", k)
}

func (r *reader) export() (*Export, error) {
	e := &Export{}
	var err error
	if e.Name, err = r.externName(); err != nil {
		return nil, err
	}
	if e.Ref, err = r.sortIdx(); err != nil {
		return nil, err
	}
	has, err := r.byte()
	if err != nil {
		return nil, err
	}
	switch has {
	case 0x00:
	case 0x01:
		d, err := r.externDesc()
		if err != nil {
			return nil, err
		}
		e.Extern = &d
	default:
		return nil, r.fail("bad optional type ascription flag %#x", has)
	}
	return e, nil
}

func (r *reader) externDesc() (ExternDesc, error) {
	k, err := r.byte()
	if err != nil {
		return ExternDesc{}, err
	}
	var d ExternDesc
	switch k {
	case 0x00:
		c, err := r.byte()
		if err != nil {
			return d, err
		}
		if c != 0x11 {
			return d, r.fail("core extern type %#x is not a module (0x11)", c)
		}
		d.Sort = SortCore
		d.Idx, err = r.u32()
		return d, err
	case 0x01, 0x04, 0x05:
		d.Sort = Sort(k)
		d.Idx, err = r.u32()
		return d, err
	case 0x02:
		return d, r.fail("value imports and exports are not supported")
	case 0x03:
		d.Sort = SortType
		b, err := r.byte()
		if err != nil {
			return d, err
		}
		switch b {
		case 0x00:
			d.Idx, err = r.u32()
			return d, err
		case 0x01:
			d.SubRes = true
			return d, nil
		}
		return d, r.fail("unknown type bound %#x", b)
	}
	return d, r.fail("unknown extern type %#x", k)
}

// isPrim reports whether c is a primitive value type opcode (0x73–0x7f:
// string … bool, and 0x64: error-context).
func isPrim(c byte) bool { return c >= 0x73 && c <= 0x7f || c == PrimErrorContext }

// valType reads a valtype: a primitive opcode or a type index (s33 >= 0).
func (r *reader) valType() (*ValType, error) {
	c, err := r.peek()
	if err != nil {
		return nil, err
	}
	if isPrim(c) {
		r.pos++
		return &ValType{Prim: c}, nil
	}
	if c&0x40 != 0 && c&0x80 == 0 {
		return nil, r.fail("unknown value type opcode %#x", c)
	}
	// A non-negative s33 index; u32 decoding is the same for these.
	i, err := r.u32()
	if err != nil {
		return nil, err
	}
	return &ValType{Idx: i}, nil
}

func (r *reader) optValType() (*ValType, error) {
	c, err := r.byte()
	if err != nil {
		return nil, err
	}
	switch c {
	case 0x00:
		return nil, nil
	case 0x01:
		return r.valType()
	}
	return nil, r.fail("bad optional value type flag %#x", c)
}

func (r *reader) labels() ([]string, error) {
	n, err := r.count()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		s, err := r.name()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (r *reader) typeDef(depth int) (*TypeDef, error) {
	if depth > maxDepth {
		return nil, r.fail("types nested deeper than %d", maxDepth)
	}
	c, err := r.byte()
	if err != nil {
		return nil, err
	}
	if isPrim(c) {
		if c == PrimErrorContext {
			return &TypeDef{Kind: TypeErrorContext}, nil
		}
		return &TypeDef{Kind: TypePrim, Prim: c}, nil
	}
	t := &TypeDef{}
	switch c {
	case 0x72, 0x71:
		t.Kind = TypeRecord
		if c == 0x71 {
			t.Kind = TypeVariant
		}
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		// An empty record or variant is not a valid component type, but WIT
		// packages encode `record r {}` so; the linker refuses it in a
		// component (package component).
		for i := 0; i < n; i++ {
			l, err := r.name()
			if err != nil {
				return nil, err
			}
			var vt *ValType
			if c == 0x72 {
				vt, err = r.valType()
			} else {
				vt, err = r.optValType()
				if err == nil {
					var refines byte
					if refines, err = r.byte(); err == nil && refines != 0 {
						if refines != 1 {
							return nil, r.fail("bad variant case refinement flag %#x", refines)
						}
						_, err = r.u32()
					}
				}
			}
			if err != nil {
				return nil, err
			}
			t.Labels = append(t.Labels, l)
			t.Types = append(t.Types, vt)
		}
	case 0x70, 0x6b:
		t.Kind = TypeList
		if c == 0x6b {
			t.Kind = TypeOption
		}
		vt, err := r.valType()
		if err != nil {
			return nil, err
		}
		t.Types = []*ValType{vt}
	case 0x67:
		t.Kind = TypeList
		vt, err := r.valType()
		if err != nil {
			return nil, err
		}
		t.Types = []*ValType{vt}
		if t.Len, err = r.u32(); err != nil {
			return nil, err
		}
		if t.Len == 0 {
			return nil, r.fail("fixed-size list of length 0")
		}
	case 0x6f:
		t.Kind = TypeTuple
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		// An empty tuple, like an empty record, is not a valid component
		// type but encodes the WIT `tuple<>`; the linker refuses it.
		for i := 0; i < n; i++ {
			vt, err := r.valType()
			if err != nil {
				return nil, err
			}
			t.Types = append(t.Types, vt)
		}
	case 0x6e, 0x6d:
		t.Kind = TypeFlags
		if c == 0x6d {
			t.Kind = TypeEnum
		}
		if t.Labels, err = r.labels(); err != nil {
			return nil, err
		}
		// Empty flags or enums and more than 32 flags are not valid
		// component types but encode valid WIT (`flags f {}`); the
		// linker refuses them.
	case 0x6a:
		t.Kind = TypeResult
		ok, err := r.optValType()
		if err != nil {
			return nil, err
		}
		er, err := r.optValType()
		if err != nil {
			return nil, err
		}
		t.Types = []*ValType{ok, er}
	case 0x69, 0x68:
		t.Kind = TypeOwn
		if c == 0x68 {
			t.Kind = TypeBorrow
		}
		if t.Idx, err = r.u32(); err != nil {
			return nil, err
		}
	case 0x66, 0x65:
		t.Kind = TypeStream
		if c == 0x65 {
			t.Kind = TypeFuture
		}
		vt, err := r.optValType()
		if err != nil {
			return nil, err
		}
		t.Types = []*ValType{vt}
	case 0x63:
		t.Kind = TypeMap
		k, err := r.valType()
		if err != nil {
			return nil, err
		}
		v, err := r.valType()
		if err != nil {
			return nil, err
		}
		t.Types = []*ValType{k, v}
	case 0x40, 0x43:
		t.Kind = TypeFunc
		t.Async = c == 0x43
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			l, err := r.name()
			if err != nil {
				return nil, err
			}
			vt, err := r.valType()
			if err != nil {
				return nil, err
			}
			t.Labels = append(t.Labels, l)
			t.Types = append(t.Types, vt)
		}
		k, err := r.byte()
		if err != nil {
			return nil, err
		}
		switch k {
		case 0x00:
			if t.Result, err = r.valType(); err != nil {
				return nil, err
			}
		case 0x01:
			// Older encodings allowed a list of named results; only empty remains.
			n, err := r.count()
			if err != nil {
				return nil, err
			}
			if n != 0 {
				return nil, r.fail("function with %d named results (not supported)", n)
			}
		default:
			return nil, r.fail("bad result list form %#x", k)
		}
	case 0x41, 0x42:
		t.Kind = TypeComponent
		if c == 0x42 {
			t.Kind = TypeInstance
		}
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			d, err := r.decl(c == 0x41, depth)
			if err != nil {
				return nil, err
			}
			t.Decls = append(t.Decls, d)
		}
	case 0x3f:
		t.Kind = TypeResource
		rep, err := r.byte()
		if err != nil {
			return nil, err
		}
		if rep != 0x7f {
			return nil, r.fail("resource representation %#x is not i32", rep)
		}
		has, err := r.byte()
		if err != nil {
			return nil, err
		}
		if has == 0x01 {
			if _, err := r.u32(); err != nil {
				return nil, err
			}
		} else if has != 0x00 {
			return nil, r.fail("bad resource destructor flag %#x", has)
		}
	default:
		return nil, r.fail("unknown type definition opcode %#x", c)
	}
	return t, nil
}

func (r *reader) decl(component bool, depth int) (Decl, error) {
	k, err := r.byte()
	if err != nil {
		return Decl{}, err
	}
	var d Decl
	switch k {
	case 0x00:
		d.Kind = DeclCoreType
		d.Type, err = r.coreType()
	case 0x01:
		d.Kind = DeclType
		d.Type, err = r.typeDef(depth + 1)
	case 0x02:
		d.Kind = DeclAlias
		d.Alias, err = r.alias()
	case 0x03:
		if !component {
			return d, r.fail("import declaration inside an instance type")
		}
		d.Kind = DeclImport
		if d.Name, err = r.externName(); err == nil {
			d.Extern, err = r.externDesc()
		}
	case 0x04:
		d.Kind = DeclExport
		if d.Name, err = r.externName(); err == nil {
			d.Extern, err = r.externDesc()
		}
	default:
		return d, r.fail("unknown declaration kind %#x", k)
	}
	return d, err
}

// coreType reads a core type definition and keeps it opaque: core function
// types (0x60), rec groups and module types (0x50) are skipped structurally.
func (r *reader) coreType() (*TypeDef, error) {
	c, err := r.byte()
	if err != nil {
		return nil, err
	}
	switch c {
	case 0x60:
		if err := r.skipCoreFuncType(); err != nil {
			return nil, err
		}
		return &TypeDef{Kind: TypeCoreFunc}, nil
	case 0x50:
		n, err := r.count()
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			k, err := r.byte()
			if err != nil {
				return nil, err
			}
			switch k {
			case 0x00: // import
				if _, err := r.name(); err != nil {
					return nil, err
				}
				if _, err := r.name(); err != nil {
					return nil, err
				}
				if err := r.skipCoreExternType(); err != nil {
					return nil, err
				}
			case 0x01:
				if _, err := r.coreType(); err != nil {
					return nil, err
				}
			case 0x02:
				if _, err := r.bytes(2); err != nil {
					return nil, err
				}
				if _, err := r.u32(); err != nil {
					return nil, err
				}
				if _, err := r.u32(); err != nil {
					return nil, err
				}
			case 0x03:
				if _, err := r.name(); err != nil {
					return nil, err
				}
				if err := r.skipCoreExternType(); err != nil {
					return nil, err
				}
			default:
				return nil, r.fail("unknown core module type declaration %#x", k)
			}
		}
		return &TypeDef{Kind: TypeCoreModule}, nil
	}
	return nil, r.fail("core type %#x is not supported (only function and module types)", c)
}

func (r *reader) skipCoreValTypes() error {
	n, err := r.count()
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		c, err := r.byte()
		if err != nil {
			return err
		}
		switch c {
		case 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f:
		default:
			return r.fail("core value type %#x is not supported", c)
		}
	}
	return nil
}

func (r *reader) skipCoreFuncType() error {
	if err := r.skipCoreValTypes(); err != nil {
		return err
	}
	return r.skipCoreValTypes()
}

func (r *reader) skipLimits() error {
	f, err := r.byte()
	if err != nil {
		return err
	}
	if _, err := r.u32(); err != nil {
		return err
	}
	if f&1 != 0 {
		if _, err := r.u32(); err != nil {
			return err
		}
	}
	return nil
}

func (r *reader) skipCoreExternType() error {
	k, err := r.byte()
	if err != nil {
		return err
	}
	switch k {
	case 0x00:
		_, err = r.u32()
		return err
	case 0x01:
		if _, err := r.byte(); err != nil {
			return err
		}
		return r.skipLimits()
	case 0x02:
		return r.skipLimits()
	case 0x03:
		_, err = r.bytes(2)
		return err
	}
	return r.fail("unknown core extern type %#x", k)
}

var canonNames = map[byte]string{0x00: "lift", 0x01: "lower", 0x02: "resource.new", 0x03: "resource.drop",
	0x04: "resource.rep", 0x07: "resource.drop async", 0x05: "task.cancel", 0x06: "subtask.cancel", 0x09: "task.return",
	0x0a: "context.get", 0x0b: "context.set", 0x0c: "thread.yield", 0x0d: "subtask.drop", 0x0e: "stream.new",
	0x0f: "stream.read", 0x10: "stream.write", 0x11: "stream.cancel-read", 0x12: "stream.cancel-write",
	0x13: "stream.drop-readable", 0x14: "stream.drop-writable", 0x15: "future.new", 0x16: "future.read",
	0x17: "future.write", 0x18: "future.cancel-read", 0x19: "future.cancel-write", 0x1a: "future.drop-readable",
	0x1b: "future.drop-writable", 0x1c: "error-context.new", 0x1d: "error-context.debug-message",
	0x1e: "error-context.drop", 0x1f: "waitable-set.new", 0x20: "waitable-set.wait", 0x21: "waitable-set.poll",
	0x22: "waitable-set.drop", 0x23: "waitable.join", 0x24: "backpressure.inc", 0x25: "backpressure.dec",
	0x26: "thread.index", 0x27: "thread.new-indirect", 0x28: "thread.resume-later", 0x29: "thread.suspend",
	0x2a: "thread.suspend-then-resume", 0x2b: "thread.yield-then-resume", 0x2c: "thread.suspend-then-promote",
	0x2d: "thread.yield-then-promote", 0x40: "thread.spawn-ref", 0x41: "thread.spawn-indirect", 0x42: "thread.available-parallelism"}

func (r *reader) canon() (*Canon, error) {
	op, err := r.byte()
	if err != nil {
		return nil, err
	}
	c := &Canon{Op: CanonOp(op), Name: canonNames[op]}
	switch op {
	case 0x00, 0x01:
		sub, err := r.byte()
		if err != nil {
			return nil, err
		}
		if sub != 0x00 {
			return nil, r.fail("canon %s with sort byte %#x, want 0x00", c.Name, sub)
		}
		if c.Func, err = r.u32(); err != nil {
			return nil, err
		}
		if c.Opts, err = r.options(); err != nil {
			return nil, err
		}
		if op == 0x00 {
			if c.Type, err = r.u32(); err != nil {
				return nil, err
			}
		}
	case 0x02, 0x03, 0x04, 0x07:
		if c.Type, err = r.u32(); err != nil {
			return nil, err
		}
	case 0x05, 0x0d, 0x1e, 0x1f, 0x22, 0x23, 0x24, 0x25:
		// task.cancel, subtask.drop, error-context.drop, waitable-set.new,
		// waitable-set.drop, waitable.join, backpressure.inc/dec: no immediates.
	case 0x06, 0x0c:
		// subtask.cancel async?, thread.yield cancel?
		if c.Flag, err = r.flag(); err != nil {
			return nil, err
		}
	case 0x0a, 0x0b:
		// context.get/set t i
		t, err := r.byte()
		if err != nil {
			return nil, err
		}
		if t != 0x7f {
			return nil, r.fail("canon %s of core type %#x (only i32 is defined)", c.Name, t)
		}
		if c.Type, err = r.u32(); err != nil {
			return nil, err
		}
	case 0x20, 0x21:
		// waitable-set.wait/poll cancel? memory
		if c.Flag, err = r.flag(); err != nil {
			return nil, err
		}
		m, err := r.u32()
		if err != nil {
			return nil, err
		}
		c.Opts.Memory = &m
	case 0x09:
		// task.return resultlist opts
		k, err := r.byte()
		if err != nil {
			return nil, err
		}
		switch k {
		case 0x00:
			if _, err := r.valType(); err != nil {
				return nil, err
			}
		case 0x01:
			if _, err := r.byte(); err != nil {
				return nil, err
			}
		default:
			return nil, r.fail("bad result list form %#x", k)
		}
		if c.Opts, err = r.options(); err != nil {
			return nil, err
		}
	case 0x0e, 0x13, 0x14, 0x15, 0x1a, 0x1b:
		if c.Type, err = r.u32(); err != nil {
			return nil, err
		}
	case 0x0f, 0x10, 0x16, 0x17:
		if c.Type, err = r.u32(); err != nil {
			return nil, err
		}
		if c.Opts, err = r.options(); err != nil {
			return nil, err
		}
	case 0x11, 0x12, 0x18, 0x19:
		if c.Type, err = r.u32(); err != nil {
			return nil, err
		}
		if c.Flag, err = r.flag(); err != nil {
			return nil, err
		}
	case 0x1c, 0x1d:
		if c.Opts, err = r.options(); err != nil {
			return nil, err
		}
	default:
		if c.Name == "" {
			return nil, r.fail("unknown canonical definition %#x", op)
		}
		return nil, r.fail("canon %s (thread built-in) is not supported", c.Name)
	}
	return c, nil
}

func (r *reader) flag() (bool, error) {
	b, err := r.byte()
	if err != nil {
		return false, err
	}
	if b > 1 {
		return false, r.fail("bad flag byte %#x", b)
	}
	return b == 1, nil
}

func (r *reader) options() (Options, error) {
	var o Options
	n, err := r.count()
	if err != nil {
		return o, err
	}
	seenEnc := false
	for i := 0; i < n; i++ {
		k, err := r.byte()
		if err != nil {
			return o, err
		}
		idx := func(dst **uint32, what string) error {
			if *dst != nil {
				return r.fail("duplicate canonical option %s", what)
			}
			v, err := r.u32()
			if err != nil {
				return err
			}
			*dst = &v
			return nil
		}
		switch k {
		case 0x00, 0x01, 0x02:
			if seenEnc {
				return o, r.fail("conflicting string-encoding options")
			}
			seenEnc = true
			o.Encoding = StringEncoding(k)
		case 0x03:
			err = idx(&o.Memory, "memory")
		case 0x04:
			err = idx(&o.Realloc, "realloc")
		case 0x05:
			err = idx(&o.PostReturn, "post-return")
		case 0x06:
			o.Async = true
		case 0x07:
			err = idx(&o.Callback, "callback")
		default:
			return o, r.fail("unknown canonical option %#x", k)
		}
		if err != nil {
			return o, err
		}
	}
	return o, nil
}
