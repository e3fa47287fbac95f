package component

import (
	"fmt"
	"strings"

	"github.com/aios-host/aios-host/component/binary"
	"github.com/aios-host/aios-host/wit"
)

// scope is a type index space: a component frame, or a component/instance
// type body nested in one (outer aliases count scopes outward).
type scope struct {
	f      *frame // set for a component frame scope
	types  []*typeVal
	parent *scope
}

func (s *scope) typeSpace() []*typeVal {
	if s.f != nil {
		return s.f.types
	}
	return s.types
}

func (s *scope) push(t *typeVal) {
	if s.f != nil {
		s.f.types = append(s.f.types, t)
	} else {
		s.types = append(s.types, t)
	}
}

func (s *scope) valType(vt *binary.ValType) (*wit.Type, error) {
	if vt == nil {
		return nil, nil
	}
	if vt.Prim != 0 {
		return wit.Primitive(primKind(vt.Prim)), nil
	}
	sp := s.typeSpace()
	if int(vt.Idx) >= len(sp) {
		return nil, fmt.Errorf("type index %d out of range (%d defined)", vt.Idx, len(sp))
	}
	t := sp[vt.Idx]
	if t.val == nil {
		return nil, fmt.Errorf("type index %d is not a value type", vt.Idx)
	}
	return t.val, nil
}

// primKind is the WIT kind of a primitive opcode (binary.Prim*).
func primKind(op byte) wit.Kind {
	switch op {
	case binary.PrimBool:
		return wit.KindBool
	case binary.PrimS8:
		return wit.KindS8
	case binary.PrimU8:
		return wit.KindU8
	case binary.PrimS16:
		return wit.KindS16
	case binary.PrimU16:
		return wit.KindU16
	case binary.PrimS32:
		return wit.KindS32
	case binary.PrimU32:
		return wit.KindU32
	case binary.PrimS64:
		return wit.KindS64
	case binary.PrimU64:
		return wit.KindU64
	case binary.PrimF32:
		return wit.KindF32
	case binary.PrimF64:
		return wit.KindF64
	case binary.PrimChar:
		return wit.KindChar
	case binary.PrimString:
		return wit.KindString
	case binary.PrimErrorContext:
		return wit.KindErrorContext
	}
	return wit.KindInvalid
}

func (f *frame) buildType(td *binary.TypeDef, s *scope) (*typeVal, error) {
	t, err := buildType(td, s)
	if err != nil {
		return nil, fmt.Errorf("component type definition: %w", err)
	}
	return t, nil
}

// checkLabels refuses a label of a record, variant, flags, enum or
// function that is not kebab-case, and two that are equal ignoring case
// (type validation): their JSON form would be ambiguous.
func checkLabels(what string, labels []string) error {
	for _, l := range labels {
		if err := wit.ValidateLabel(l); err != nil {
			return fmt.Errorf("%s name: %w", what, err)
		}
	}
	if len(labels) < 2 {
		return nil
	}
	seen := make(map[string]string, len(labels))
	for _, l := range labels {
		k := strings.ToLower(l)
		if prev, ok := seen[k]; ok {
			return fmt.Errorf("%s name %q conflicts with the previous %q", what, l, prev)
		}
		seen[k] = l
	}
	return nil
}

func buildType(td *binary.TypeDef, s *scope) (*typeVal, error) {
	vt := func(i int) (*wit.Type, error) { return s.valType(td.Types[i]) }
	w := &wit.Type{}
	var err error
	switch td.Kind {
	case binary.TypeRecord:
		err = checkLabels("record field", td.Labels)
	case binary.TypeVariant:
		err = checkLabels("variant case", td.Labels)
	case binary.TypeFlags:
		err = checkLabels("flag", td.Labels)
	case binary.TypeEnum:
		err = checkLabels("enum case", td.Labels)
	case binary.TypeFunc:
		err = checkLabels("function parameter", td.Labels)
	}
	if err != nil {
		return nil, err
	}
	switch td.Kind {
	case binary.TypePrim:
		return &typeVal{val: wit.Primitive(primKind(td.Prim))}, nil
	case binary.TypeRecord:
		if len(td.Labels) == 0 {
			return nil, fmt.Errorf("record without fields")
		}
		w.Kind = wit.KindRecord
		for i, l := range td.Labels {
			x, err := vt(i)
			if err != nil {
				return nil, fmt.Errorf("record field %s: %w", l, err)
			}
			w.Fields = append(w.Fields, wit.Field{Name: l, Type: x})
		}
	case binary.TypeVariant:
		if len(td.Labels) == 0 {
			return nil, fmt.Errorf("variant without cases")
		}
		w.Kind = wit.KindVariant
		for i, l := range td.Labels {
			x, err := vt(i)
			if err != nil {
				return nil, fmt.Errorf("variant case %s: %w", l, err)
			}
			w.Cases = append(w.Cases, wit.Case{Name: l, Type: x})
		}
	case binary.TypeList, binary.TypeOption:
		w.Kind = wit.KindList
		if td.Kind == binary.TypeOption {
			w.Kind = wit.KindOption
		}
		x, err := vt(0)
		if err != nil {
			return nil, err
		}
		w.Elem, w.Len = x, td.Len
	case binary.TypeTuple:
		if len(td.Types) == 0 {
			return nil, fmt.Errorf("empty tuple")
		}
		w.Kind = wit.KindTuple
		for i := range td.Types {
			x, err := vt(i)
			if err != nil {
				return nil, err
			}
			w.Tuple = append(w.Tuple, x)
		}
	case binary.TypeFlags:
		if len(td.Labels) == 0 || len(td.Labels) > 32 {
			return nil, fmt.Errorf("flags with %d labels (at least 1, at most 32)", len(td.Labels))
		}
		w.Kind, w.Names = wit.KindFlags, td.Labels
	case binary.TypeEnum:
		if len(td.Labels) == 0 {
			return nil, fmt.Errorf("enum without cases")
		}
		w.Kind, w.Names = wit.KindEnum, td.Labels
	case binary.TypeResult:
		w.Kind = wit.KindResult
		var err error
		if w.Ok, err = vt(0); err != nil {
			return nil, err
		}
		if w.Err, err = vt(1); err != nil {
			return nil, err
		}
	case binary.TypeOwn, binary.TypeBorrow:
		w.Kind = wit.KindOwn
		if td.Kind == binary.TypeBorrow {
			w.Kind = wit.KindBorrow
		}
		sp := s.typeSpace()
		if int(td.Idx) >= len(sp) || !sp[td.Idx].resource {
			return nil, fmt.Errorf("handle type refers to type %d, which is not a resource", td.Idx)
		}
		w.Resource = sp[td.Idx].res
	case binary.TypeStream, binary.TypeFuture:
		w.Kind = wit.KindStream
		if td.Kind == binary.TypeFuture {
			w.Kind = wit.KindFuture
		}
		x, err := vt(0)
		if err != nil {
			return nil, err
		}
		w.Elem = x
	case binary.TypeErrorContext:
		w.Kind = wit.KindErrorContext
	case binary.TypeMap:
		return nil, fmt.Errorf("map types are not supported")
	case binary.TypeFunc:
		fn := &wit.Func{Async: td.Async}
		for i, l := range td.Labels {
			x, err := vt(i)
			if err != nil {
				return nil, fmt.Errorf("function parameter %s: %w", l, err)
			}
			fn.Params = append(fn.Params, wit.Param{Name: l, Type: x})
		}
		if td.Result != nil {
			x, err := s.valType(td.Result)
			if err != nil {
				return nil, fmt.Errorf("function result: %w", err)
			}
			fn.Result = x
		}
		return &typeVal{fn: fn}, nil
	case binary.TypeInstance, binary.TypeComponent:
		return buildDecls(td, s)
	case binary.TypeResource:
		return &typeVal{resource: true, res: &wit.Resource{Name: "resource"}}, nil
	case binary.TypeCoreModule, binary.TypeCoreFunc:
		return &typeVal{other: "core type"}, nil
	default:
		return nil, fmt.Errorf("unsupported type definition kind %d", td.Kind)
	}
	return &typeVal{val: w}, nil
}

func buildDecls(td *binary.TypeDef, parent *scope) (*typeVal, error) {
	s := &scope{parent: parent}
	it := &instType{funcs: map[string]*wit.Func{}, types: map[string]*typeVal{}}
	var imports, exports uniqueNames
	for i, d := range td.Decls {
		switch d.Kind {
		case binary.DeclCoreType:
		case binary.DeclType:
			t, err := buildType(d.Type, s)
			if err != nil {
				return nil, fmt.Errorf("declaration %d: %w", i, err)
			}
			s.push(t)
		case binary.DeclAlias:
			a := d.Alias
			if a.Kind != binary.AliasOuter || a.Sort != binary.SortType {
				return nil, fmt.Errorf("declaration %d: only outer type aliases are supported in instance types", i)
			}
			t := s
			for k := uint32(0); k < a.Count; k++ {
				if t.parent == nil {
					return nil, fmt.Errorf("declaration %d: outer alias count %d too large", i, a.Count)
				}
				t = t.parent
			}
			sp := t.typeSpace()
			if int(a.Idx) >= len(sp) {
				return nil, fmt.Errorf("declaration %d: outer alias of type %d out of range", i, a.Idx)
			}
			s.push(sp[a.Idx])
		case binary.DeclExport, binary.DeclImport:
			if err := wit.ValidateExternName(d.Name, d.Kind == binary.DeclImport); err != nil {
				return nil, fmt.Errorf("declaration %d: %w", i, err)
			}
			names, what := &exports, "export"
			if d.Kind == binary.DeclImport {
				names, what = &imports, "import"
			}
			if err := names.add(what, d.Name); err != nil {
				return nil, fmt.Errorf("declaration %d: %w", i, err)
			}
			switch d.Extern.Sort {
			case binary.SortFunc:
				sp := s.typeSpace()
				if int(d.Extern.Idx) >= len(sp) || sp[d.Extern.Idx].fn == nil {
					return nil, fmt.Errorf("declaration %d (%q): type %d is not a function type", i, d.Name, d.Extern.Idx)
				}
				fn := *sp[d.Extern.Idx].fn
				fn.Name = d.Name
				if d.Kind == binary.DeclExport {
					it.funcs[d.Name] = &fn
					it.order = append(it.order, d.Name)
				}
			case binary.SortType:
				var t *typeVal
				if d.Extern.SubRes {
					t = &typeVal{resource: true, res: &wit.Resource{Name: d.Name}}
				} else {
					sp := s.typeSpace()
					if int(d.Extern.Idx) >= len(sp) {
						return nil, fmt.Errorf("declaration %d (%q): type %d out of range", i, d.Name, d.Extern.Idx)
					}
					t = sp[d.Extern.Idx]
					nameType(t, d.Name, "")
				}
				s.push(t)
				if d.Kind == binary.DeclExport {
					it.types[d.Name] = t
				}
			case binary.SortInstance:
				sp := s.typeSpace()
				if int(d.Extern.Idx) >= len(sp) || sp[d.Extern.Idx].inst == nil {
					return nil, fmt.Errorf("declaration %d (%q): type %d is not an instance type", i, d.Name, d.Extern.Idx)
				}
			}
		}
	}
	if td.Kind == binary.TypeComponent {
		return &typeVal{other: "component type"}, nil
	}
	return &typeVal{inst: it}, nil
}
