//go:build wasmtime

package wasmtime

/*
#include "capi.h"
*/
import "C"

import (
	"fmt"
	"github.com/aios-host/aios-host/component/cabi"
	"math"
	"unsafe"

	"github.com/aios-host/aios-host/wit"
)

// maxDepth bounds the nesting of values converted in either direction.
const maxDepth = 100

var kindOf = [...]C.wasmtime_component_valkind_t{
	wit.KindBool: C.WASMTIME_COMPONENT_BOOL,
	wit.KindS8:   C.WASMTIME_COMPONENT_S8, wit.KindU8: C.WASMTIME_COMPONENT_U8,
	wit.KindS16: C.WASMTIME_COMPONENT_S16, wit.KindU16: C.WASMTIME_COMPONENT_U16,
	wit.KindS32: C.WASMTIME_COMPONENT_S32, wit.KindU32: C.WASMTIME_COMPONENT_U32,
	wit.KindS64: C.WASMTIME_COMPONENT_S64, wit.KindU64: C.WASMTIME_COMPONENT_U64,
	wit.KindF32: C.WASMTIME_COMPONENT_F32, wit.KindF64: C.WASMTIME_COMPONENT_F64,
	wit.KindChar: C.WASMTIME_COMPONENT_CHAR, wit.KindString: C.WASMTIME_COMPONENT_STRING,
	wit.KindList: C.WASMTIME_COMPONENT_LIST, wit.KindRecord: C.WASMTIME_COMPONENT_RECORD,
	wit.KindTuple: C.WASMTIME_COMPONENT_TUPLE, wit.KindVariant: C.WASMTIME_COMPONENT_VARIANT,
	wit.KindEnum: C.WASMTIME_COMPONENT_ENUM, wit.KindFlags: C.WASMTIME_COMPONENT_FLAGS,
	wit.KindOption: C.WASMTIME_COMPONENT_OPTION, wit.KindResult: C.WASMTIME_COMPONENT_RESULT,
}

func wantKind(t *wit.Type) (C.wasmtime_component_valkind_t, error) {
	if int(t.Kind) >= len(kindOf) || (kindOf[t.Kind] == 0 && t.Kind != wit.KindBool) {
		return 0, fmt.Errorf("the wasmtime engine does not convert WIT %s values", t.Kind)
	}
	return kindOf[t.Kind], nil
}

// lower writes v (of WIT type t) into out, which must hold a valid value
// (zeroed memory is bool false). On error out is left valid (possibly
// partly built), so deleting it is always safe.
func lower(t *wit.Type, v wit.Value, out *cval, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("value nested deeper than %d", maxDepth)
	}
	kind, err := wantKind(t)
	if err != nil {
		return err
	}
	bad := func() error { return fmt.Errorf("a %s value cannot be %T", t.Kind, v) }
	switch t.Kind {
	case wit.KindBool:
		b, ok := v.(bool)
		if !ok {
			return bad()
		}
		*ofPtr[C.bool](out) = C.bool(b)
	case wit.KindS8, wit.KindS16, wit.KindS32, wit.KindS64:
		i, ok := v.(int64)
		if !ok {
			return bad()
		}
		switch t.Kind {
		case wit.KindS8:
			*ofPtr[int8](out) = int8(i)
		case wit.KindS16:
			*ofPtr[int16](out) = int16(i)
		case wit.KindS32:
			*ofPtr[int32](out) = int32(i)
		default:
			*ofPtr[int64](out) = i
		}
	case wit.KindU8, wit.KindU16, wit.KindU32, wit.KindU64:
		u, ok := v.(uint64)
		if !ok {
			return bad()
		}
		switch t.Kind {
		case wit.KindU8:
			*ofPtr[uint8](out) = uint8(u)
		case wit.KindU16:
			*ofPtr[uint16](out) = uint16(u)
		case wit.KindU32:
			*ofPtr[uint32](out) = uint32(u)
		default:
			*ofPtr[uint64](out) = u
		}
	case wit.KindF32:
		f, ok := v.(float32)
		if !ok {
			return bad()
		}
		*ofPtr[float32](out) = f
	case wit.KindF64:
		f, ok := v.(float64)
		if !ok {
			return bad()
		}
		*ofPtr[float64](out) = f
	case wit.KindChar:
		r, ok := v.(rune)
		if !ok {
			return bad()
		}
		*ofPtr[uint32](out) = uint32(r)
	case wit.KindString:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		out.kind = kind
		setName(ofPtr[C.wasm_name_t](out), s)
		return nil
	case wit.KindList:
		n, elem, err := listElems(t, v)
		if err != nil {
			return err
		}
		out.kind = kind
		l := ofPtr[C.wasmtime_component_vallist_t](out)
		C.wasmtime_component_vallist_new_uninit(l, C.size_t(n))
		if n == 0 {
			return nil
		}
		C.memset(unsafe.Pointer(l.data), 0, C.size_t(n)*valSize)
		dst := unsafe.Slice(l.data, n)
		for i := range dst {
			if err := lower(t.Elem, elem(i), &dst[i], depth+1); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	case wit.KindRecord:
		r, ok := v.(wit.Record)
		if !ok || len(r) != len(t.Fields) {
			return fmt.Errorf("record %s needs %d fields, got %T of length %d", t.Name, len(t.Fields), v, len(r))
		}
		out.kind = kind
		rec := ofPtr[C.wasmtime_component_valrecord_t](out)
		C.wasmtime_component_valrecord_new_uninit(rec, C.size_t(len(r)))
		if len(r) == 0 {
			return nil
		}
		C.memset(unsafe.Pointer(rec.data), 0, C.size_t(len(r))*C.sizeof_wasmtime_component_valrecord_entry_t)
		dst := unsafe.Slice(rec.data, len(r))
		for i, f := range t.Fields {
			setName(&dst[i].name, f.Name)
			if err := lower(f.Type, r[i], &dst[i].val, depth+1); err != nil {
				return fmt.Errorf(".%s: %w", f.Name, err)
			}
		}
		return nil
	case wit.KindTuple:
		tu, ok := v.(wit.Tuple)
		if !ok || len(tu) != len(t.Tuple) {
			return fmt.Errorf("tuple needs %d elements, got %T of length %d", len(t.Tuple), v, len(tu))
		}
		out.kind = kind
		l := ofPtr[C.wasmtime_component_valtuple_t](out)
		C.wasmtime_component_valtuple_new_uninit(l, C.size_t(len(tu)))
		if len(tu) == 0 {
			return nil
		}
		C.memset(unsafe.Pointer(l.data), 0, C.size_t(len(tu))*valSize)
		dst := unsafe.Slice(l.data, len(tu))
		for i, et := range t.Tuple {
			if err := lower(et, tu[i], &dst[i], depth+1); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	case wit.KindVariant:
		vr, ok := v.(wit.Variant)
		if !ok || int(vr.Case) >= len(t.Cases) {
			return fmt.Errorf("variant %s: bad case in %v", t.Name, v)
		}
		c := t.Cases[vr.Case]
		pl, err := boxed(c.Type, vr.Val, depth)
		if err != nil {
			return fmt.Errorf("(%s): %w", c.Name, err)
		}
		out.kind = kind
		x := ofPtr[C.wasmtime_component_valvariant_t](out)
		setName(&x.discriminant, c.Name)
		x.val = pl
		return nil
	case wit.KindEnum:
		e, ok := v.(wit.Enum)
		if !ok || int(e) >= len(t.Names) {
			return fmt.Errorf("enum %s: bad case %v", t.Name, v)
		}
		out.kind = kind
		setName(ofPtr[C.wasm_name_t](out), t.Names[e])
		return nil
	case wit.KindFlags:
		f, ok := v.(wit.Flags)
		if !ok {
			return bad()
		}
		var set []string
		for i, n := range t.Names {
			if f&(1<<uint(i)) != 0 {
				set = append(set, n)
			}
		}
		out.kind = kind
		l := ofPtr[C.wasmtime_component_valflags_t](out)
		C.wasmtime_component_valflags_new_uninit(l, C.size_t(len(set)))
		if len(set) > 0 {
			dst := unsafe.Slice(l.data, len(set))
			for i, n := range set {
				setName(&dst[i], n)
			}
		}
		return nil
	case wit.KindOption:
		o, ok := v.(wit.Option)
		if !ok {
			return bad()
		}
		var pl *cval
		if o.Some {
			if pl, err = boxed(t.Elem, o.Val, depth); err != nil {
				return fmt.Errorf("(some): %w", err)
			}
		}
		out.kind = kind
		*ofPtr[*cval](out) = pl
		return nil
	case wit.KindResult:
		r, ok := v.(wit.Result)
		if !ok {
			return bad()
		}
		side := t.Ok
		if r.IsErr {
			side = t.Err
		}
		pl, err := boxed(side, r.Val, depth)
		if err != nil {
			return fmt.Errorf("(result): %w", err)
		}
		out.kind = kind
		x := ofPtr[C.wasmtime_component_valresult_t](out)
		x.is_ok = C.bool(!r.IsErr)
		x.val = pl
		return nil
	}
	out.kind = kind
	return nil
}

// boxed lowers a payload into a heap value owned by its parent; nil type
// gives nil.
func boxed(t *wit.Type, v wit.Value, depth int) (*cval, error) {
	if t == nil {
		return nil, nil
	}
	var tmp cval
	err := lower(t, v, &tmp, depth+1)
	// Moved into wasmtime's heap either way, so the parent owns (and drops)
	// what was built.
	return C.wasmtime_component_val_new(&tmp), err
}

func listElems(t *wit.Type, v wit.Value) (int, func(int) wit.Value, error) {
	switch l := v.(type) {
	case []byte:
		if t.Elem.Kind != wit.KindU8 {
			return 0, nil, fmt.Errorf("list<%s> cannot be []byte", t.Elem.Kind)
		}
		return len(l), func(i int) wit.Value { return uint64(l[i]) }, nil
	case []wit.Value:
		if t.Len > 0 && uint32(len(l)) != t.Len {
			return 0, nil, fmt.Errorf("fixed-size list needs %d elements, got %d", t.Len, len(l))
		}
		return len(l), func(i int) wit.Value { return l[i] }, nil
	}
	return 0, nil, fmt.Errorf("a list cannot be %T", v)
}

// lift converts a wasmtime value of WIT type t into the wit value model.
// liftBudget is what one lift may still make, in the host-representation
// bytes of component/cabi's budget (docs/components.md: 16 per list element
// or record field, 8 per boxed number, 24 per record, tuple, variant,
// option or result, 16 per tuple element, 16 per string besides its
// bytes; list<u8> its bytes).
// wasmtime has lifted the value into its own representation already; the
// budget bounds the Go copy and refuses the value as wazero does.
type liftBudget struct{ left int64 }

func newLiftBudget() *liftBudget { return &liftBudget{left: cabi.DefaultLiftBudget} }

func (b *liftBudget) charge(n int64) error {
	b.left -= n
	if b.left < 0 {
		return fmt.Errorf("value larger than the lift budget of %d bytes", cabi.DefaultLiftBudget)
	}
	return nil
}

func lift(t *wit.Type, v *cval, depth int, b *liftBudget) (wit.Value, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("value nested deeper than %d", maxDepth)
	}
	kind, err := wantKind(t)
	if err != nil {
		return nil, err
	}
	if v.kind != kind {
		return nil, fmt.Errorf("wasmtime returned a value of kind %d for WIT %s", v.kind, t.Kind)
	}
	switch t.Kind {
	case wit.KindRecord, wit.KindTuple, wit.KindVariant, wit.KindOption, wit.KindResult:
		err = b.charge(24)
	case wit.KindString, wit.KindList, wit.KindEnum, wit.KindFlags:
	default:
		err = b.charge(8)
	}
	if err != nil {
		return nil, err
	}
	switch t.Kind {
	case wit.KindBool:
		return bool(*ofPtr[C.bool](v)), nil
	case wit.KindS8:
		return int64(*ofPtr[int8](v)), nil
	case wit.KindS16:
		return int64(*ofPtr[int16](v)), nil
	case wit.KindS32:
		return int64(*ofPtr[int32](v)), nil
	case wit.KindS64:
		return *ofPtr[int64](v), nil
	case wit.KindU8:
		return uint64(*ofPtr[uint8](v)), nil
	case wit.KindU16:
		return uint64(*ofPtr[uint16](v)), nil
	case wit.KindU32:
		return uint64(*ofPtr[uint32](v)), nil
	case wit.KindU64:
		return *ofPtr[uint64](v), nil
	case wit.KindF32:
		f := *ofPtr[float32](v)
		if f != f {
			f = float32(math.NaN()) // canonical NaN, as the Canonical ABI lifts it
		}
		return f, nil
	case wit.KindF64:
		f := *ofPtr[float64](v)
		if f != f {
			f = math.NaN()
		}
		return f, nil
	case wit.KindChar:
		return rune(*ofPtr[uint32](v)), nil
	case wit.KindString:
		if err := b.charge(16 + int64(ofPtr[C.wasm_name_t](v).size)); err != nil {
			return nil, err
		}
		return nameString(ofPtr[C.wasm_name_t](v)), nil
	case wit.KindList:
		l := ofPtr[C.wasmtime_component_vallist_t](v)
		src := valsSlice(l.data, int(l.size))
		if t.Elem.Kind == wit.KindU8 && t.Len == 0 {
			if err := b.charge(int64(len(src))); err != nil {
				return nil, err
			}
			b := make([]byte, len(src))
			for i := range src {
				if src[i].kind != C.WASMTIME_COMPONENT_U8 {
					return nil, fmt.Errorf("[%d]: not a u8", i)
				}
				b[i] = *ofPtr[uint8](&src[i])
			}
			return b, nil
		}
		if err := b.charge(16 * int64(len(src))); err != nil {
			return nil, err
		}
		out := make([]wit.Value, len(src))
		for i := range src {
			if out[i], err = lift(t.Elem, &src[i], depth+1, b); err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return out, nil
	case wit.KindRecord:
		r := ofPtr[C.wasmtime_component_valrecord_t](v)
		if int(r.size) != len(t.Fields) {
			return nil, fmt.Errorf("record %s: %d fields, want %d", t.Name, r.size, len(t.Fields))
		}
		if err := b.charge(16 * int64(len(t.Fields))); err != nil {
			return nil, err
		}
		src := unsafe.Slice(r.data, len(t.Fields))
		out := make(wit.Record, len(src))
		for i, f := range t.Fields {
			if n := nameString(&src[i].name); n != f.Name {
				return nil, fmt.Errorf("record %s: field %d is %q, want %q", t.Name, i, n, f.Name)
			}
			if out[i], err = lift(f.Type, &src[i].val, depth+1, b); err != nil {
				return nil, fmt.Errorf(".%s: %w", f.Name, err)
			}
		}
		return out, nil
	case wit.KindTuple:
		l := ofPtr[C.wasmtime_component_valtuple_t](v)
		if int(l.size) != len(t.Tuple) {
			return nil, fmt.Errorf("tuple of %d, want %d", l.size, len(t.Tuple))
		}
		if err := b.charge(16 * int64(len(t.Tuple))); err != nil {
			return nil, err
		}
		src := valsSlice(l.data, int(l.size))
		out := make(wit.Tuple, len(src))
		for i, et := range t.Tuple {
			if out[i], err = lift(et, &src[i], depth+1, b); err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return out, nil
	case wit.KindVariant:
		x := ofPtr[C.wasmtime_component_valvariant_t](v)
		name := nameString(&x.discriminant)
		for i, c := range t.Cases {
			if c.Name == name {
				pl, err := unboxed(c.Type, x.val, depth, b)
				if err != nil {
					return nil, fmt.Errorf("(%s): %w", name, err)
				}
				return wit.Variant{Case: uint32(i), Val: pl}, nil
			}
		}
		return nil, fmt.Errorf("variant %s has no case %q", t.Name, name)
	case wit.KindEnum:
		name := nameString(ofPtr[C.wasm_name_t](v))
		for i, n := range t.Names {
			if n == name {
				return wit.Enum(i), nil
			}
		}
		return nil, fmt.Errorf("enum %s has no case %q", t.Name, name)
	case wit.KindFlags:
		l := ofPtr[C.wasmtime_component_valflags_t](v)
		var f wit.Flags
		for i := 0; i < int(l.size); i++ {
			name := nameString(&unsafe.Slice(l.data, l.size)[i])
			found := false
			for j, n := range t.Names {
				if n == name {
					f |= 1 << uint(j)
					found = true
				}
			}
			if !found {
				return nil, fmt.Errorf("flags %s has no flag %q", t.Name, name)
			}
		}
		return f, nil
	case wit.KindOption:
		p := *ofPtr[*cval](v)
		if p == nil {
			return wit.Option{}, nil
		}
		pl, err := lift(t.Elem, p, depth+1, b)
		if err != nil {
			return nil, fmt.Errorf("(some): %w", err)
		}
		return wit.Option{Some: true, Val: pl}, nil
	case wit.KindResult:
		x := ofPtr[C.wasmtime_component_valresult_t](v)
		side := t.Ok
		if !x.is_ok {
			side = t.Err
		}
		pl, err := unboxed(side, x.val, depth, b)
		if err != nil {
			return nil, fmt.Errorf("(result): %w", err)
		}
		return wit.Result{IsErr: !bool(x.is_ok), Val: pl}, nil
	}
	return nil, fmt.Errorf("the wasmtime engine does not convert WIT %s values", t.Kind)
}

func unboxed(t *wit.Type, p *cval, depth int, b *liftBudget) (wit.Value, error) {
	if t == nil {
		return nil, nil
	}
	if p == nil {
		return nil, fmt.Errorf("missing %s payload", t.Kind)
	}
	return lift(t, p, depth+1, b)
}
