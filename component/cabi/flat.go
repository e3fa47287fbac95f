package cabi

import (
	"strconv"

	"github.com/aios-host/aios-host/wit"
)

// Flat core values are uint64 in wazero's encoding: i32 zero-extended, f32
// and f64 as their IEEE bits. In this encoding every coercion of variant
// flattening (f32→i32, i32→i64, f32→i64, f64→i64) is the identity on
// lowering; lifting truncates to the width the case wants.

type flatIter struct {
	vals []uint64
	i    int
}

func (it *flatIter) next() (uint64, error) {
	if it.i >= len(it.vals) {
		return 0, trapf("too few core values")
	}
	v := it.vals[it.i]
	it.i++
	return v, nil
}

// liftFlat lifts a value of type t from core values.
func (cx *Context) liftFlat(t *Type, it *flatIter) (wit.Value, error) {
	switch t.Kind {
	case wit.KindString, wit.KindList:
		if t.Kind == wit.KindList && t.fixedLen > 0 {
			if t.elem.Kind == wit.KindU8 {
				b := make([]byte, t.fixedLen)
				for i := range b {
					v, err := it.next()
					if err != nil {
						return nil, err
					}
					b[i] = byte(v)
				}
				return b, nil
			}
			out := make([]wit.Value, t.fixedLen)
			for i := range out {
				v, err := cx.liftFlat(t.elem, it)
				if err != nil {
					return nil, at(err, "["+strconv.Itoa(i)+"]")
				}
				out[i] = v
			}
			return out, nil
		}
		p, err := it.next()
		if err != nil {
			return nil, err
		}
		n, err := it.next()
		if err != nil {
			return nil, err
		}
		if t.Kind == wit.KindString {
			return cx.loadString(uint32(p), uint32(n))
		}
		return cx.loadList(t.elem, uint32(p), uint32(n))
	case wit.KindRecord, wit.KindTuple:
		out := make([]wit.Value, len(t.fields))
		for i, f := range t.fields {
			v, err := cx.liftFlat(f, it)
			if err != nil {
				return nil, at(err, fieldSeg(t, i))
			}
			out[i] = v
		}
		if t.Kind == wit.KindRecord {
			return wit.Record(out), nil
		}
		return wit.Tuple(out), nil
	case wit.KindVariant, wit.KindEnum, wit.KindOption, wit.KindResult:
		dv, err := it.next()
		if err != nil {
			return nil, err
		}
		d := uint32(dv)
		if d >= uint32(len(t.cases)) {
			return nil, trapf("discriminant %d out of range for %s with %d cases", d, t.Kind, len(t.cases))
		}
		start := it.i
		var payload wit.Value
		if c := t.cases[d]; c != nil {
			payload, err = cx.liftFlat(c, it)
			if err != nil {
				return nil, at(err, caseSeg(t, d))
			}
		}
		// Skip the rest of the joined payload slots.
		end := start + len(t.Flat) - 1
		if end > len(it.vals) {
			return nil, trapf("too few core values")
		}
		it.i = end
		return makeCase(t, d, payload), nil
	}
	v, err := it.next()
	if err != nil {
		return nil, err
	}
	return liftScalar(t, v, t.nflags)
}

func liftScalar(t *Type, v uint64, nflags int) (wit.Value, error) {
	switch t.Kind {
	case wit.KindBool:
		return uint32(v) != 0, nil
	case wit.KindU8:
		return uint64(uint8(v)), nil
	case wit.KindU16:
		return uint64(uint16(v)), nil
	case wit.KindU32:
		return uint64(uint32(v)), nil
	case wit.KindU64:
		return v, nil
	case wit.KindS8:
		return int64(int8(v)), nil
	case wit.KindS16:
		return int64(int16(v)), nil
	case wit.KindS32:
		return int64(int32(v)), nil
	case wit.KindS64:
		return int64(v), nil
	case wit.KindF32:
		return f32FromBits(uint32(v)), nil
	case wit.KindF64:
		return f64FromBits(v), nil
	case wit.KindChar:
		return toChar(uint32(v))
	case wit.KindOwn, wit.KindBorrow:
		return wit.Handle(uint32(v)), nil
	case wit.KindFlags:
		return flagsValue(uint32(v), nflags), nil
	}
	return nil, badValue("unsupported type %s", t.Kind)
}

// lowerFlat appends the core values of v to out.
func (cx *Context) lowerFlat(t *Type, v wit.Value, out []uint64) ([]uint64, error) {
	switch t.Kind {
	case wit.KindBool:
		b, ok := v.(bool)
		if !ok {
			return out, badValue("%T is not a bool", v)
		}
		if b {
			return append(out, 1), nil
		}
		return append(out, 0), nil
	case wit.KindU8, wit.KindU16, wit.KindU32, wit.KindU64:
		u, err := asUnsigned(v, uint(t.Size*8))
		return append(out, u), err
	case wit.KindS8, wit.KindS16, wit.KindS32:
		i, err := asSigned(v, uint(t.Size*8))
		return append(out, uint64(uint32(int32(i)))), err
	case wit.KindS64:
		i, err := asSigned(v, 64)
		return append(out, uint64(i)), err
	case wit.KindF32:
		u, err := asF32(v)
		return append(out, uint64(u)), err
	case wit.KindF64:
		u, err := asF64(v)
		return append(out, u), err
	case wit.KindChar:
		u, err := asChar(v)
		return append(out, uint64(u)), err
	case wit.KindFlags:
		u, err := asFlags(t, v)
		return append(out, uint64(u)), err
	case wit.KindOwn, wit.KindBorrow:
		h, ok := v.(wit.Handle)
		if !ok {
			return out, badValue("%T is not a resource handle", v)
		}
		return append(out, uint64(h)), nil
	case wit.KindString:
		p, n, err := cx.lowerString(v)
		return append(out, uint64(p), uint64(n)), err
	case wit.KindList:
		if t.fixedLen > 0 {
			n, ok := listLen(v)
			if !ok || n != int(t.fixedLen) {
				return out, badValue("want a list of exactly %d elements", t.fixedLen)
			}
			if b, ok := v.([]byte); ok {
				if t.elem.Kind != wit.KindU8 {
					return out, badValue("bytes given for a list of %s", t.elem.Kind)
				}
				for _, c := range b {
					out = append(out, uint64(c))
				}
				return out, nil
			}
			var err error
			for i, e := range v.([]wit.Value) {
				if out, err = cx.lowerFlat(t.elem, e, out); err != nil {
					return out, at(err, "["+strconv.Itoa(i)+"]")
				}
			}
			return out, nil
		}
		p, n, err := cx.lowerList(t.elem, v)
		return append(out, uint64(p), uint64(n)), err
	case wit.KindRecord, wit.KindTuple:
		parts, err := asParts(t, v)
		if err != nil {
			return out, err
		}
		for i, f := range t.fields {
			if out, err = cx.lowerFlat(f, parts[i], out); err != nil {
				return out, at(err, fieldSeg(t, i))
			}
		}
		return out, nil
	case wit.KindVariant, wit.KindEnum, wit.KindOption, wit.KindResult:
		d, payload, err := caseOf(t, v)
		if err != nil {
			return out, err
		}
		out = append(out, uint64(d))
		start := len(out)
		if c := t.cases[d]; c != nil {
			if out, err = cx.lowerFlat(c, payload, out); err != nil {
				return out, at(err, caseSeg(t, d))
			}
		}
		for len(out) < start+len(t.Flat)-1 {
			out = append(out, 0)
		}
		return out, nil
	}
	return out, badValue("unsupported type %s", t.Kind)
}
