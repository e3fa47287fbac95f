package cabi

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/aios-host/aios-host/wit"
)

// Value conversion helpers: the representation is wit.Value's (see
// wit/value.go); a few nearby Go types are accepted too so hand-built values
// in Go code work.

func asUnsigned(v wit.Value, bits uint) (uint64, error) {
	var u uint64
	switch x := v.(type) {
	case uint64:
		u = x
	case uint32:
		u = uint64(x)
	case uint16:
		u = uint64(x)
	case uint8:
		u = uint64(x)
	case uint:
		u = uint64(x)
	case int64:
		if x < 0 {
			return 0, badValue("%d is negative, want u%d", x, bits)
		}
		u = uint64(x)
	case int:
		if x < 0 {
			return 0, badValue("%d is negative, want u%d", x, bits)
		}
		u = uint64(x)
	default:
		return 0, badValue("%T is not an unsigned integer (u%d)", v, bits)
	}
	if bits < 64 && u >= 1<<bits {
		return 0, badValue("%d out of range of u%d", u, bits)
	}
	return u, nil
}

func asSigned(v wit.Value, bits uint) (int64, error) {
	var i int64
	switch x := v.(type) {
	case int64:
		i = x
	case int32:
		i = int64(x)
	case int16:
		i = int64(x)
	case int8:
		i = int64(x)
	case int:
		i = int64(x)
	case uint64:
		if x > math.MaxInt64 {
			return 0, badValue("%d out of range of s%d", x, bits)
		}
		i = int64(x)
	default:
		return 0, badValue("%T is not a signed integer (s%d)", v, bits)
	}
	if bits < 64 {
		lim := int64(1) << (bits - 1)
		if i < -lim || i >= lim {
			return 0, badValue("%d out of range of s%d", i, bits)
		}
	}
	return i, nil
}

func asChar(v wit.Value) (uint32, error) {
	var r rune
	switch x := v.(type) {
	case rune:
		r = x
	case string:
		rr, n := utf8.DecodeRuneInString(x)
		if n == 0 || n != len(x) || rr == utf8.RuneError && n == 1 {
			return 0, badValue("%q is not exactly one Unicode scalar value", x)
		}
		r = rr
	default:
		return 0, badValue("%T is not a char", v)
	}
	if r < 0 || r >= 0x110000 || (r >= 0xD800 && r <= 0xDFFF) {
		return 0, badValue("%#x is not a Unicode scalar value", r)
	}
	return uint32(r), nil
}

func asF32(v wit.Value) (uint32, error) {
	switch x := v.(type) {
	case float32:
		if x != x {
			return canonicalNaN32, nil
		}
		return math.Float32bits(x), nil
	case float64:
		if x != x {
			return canonicalNaN32, nil
		}
		return math.Float32bits(float32(x)), nil
	}
	return 0, badValue("%T is not an f32", v)
}

func asF64(v wit.Value) (uint64, error) {
	switch x := v.(type) {
	case float64:
		if x != x {
			return canonicalNaN64, nil
		}
		return math.Float64bits(x), nil
	case float32:
		if x != x {
			return canonicalNaN64, nil
		}
		return math.Float64bits(float64(x)), nil
	}
	return 0, badValue("%T is not an f64", v)
}

func asParts(t *Type, v wit.Value) ([]wit.Value, error) {
	var p []wit.Value
	switch x := v.(type) {
	case wit.Record:
		p = x
	case wit.Tuple:
		p = x
	case []wit.Value:
		p = x
	default:
		return nil, badValue("%T is not a %s value", v, t.Kind)
	}
	if len(p) != len(t.fields) {
		return nil, badValue("%s has %d parts, value has %d", t.Kind, len(t.fields), len(p))
	}
	return p, nil
}

// caseOf returns the case index and payload of a variant-like value.
func caseOf(t *Type, v wit.Value) (uint32, wit.Value, error) {
	var d uint32
	var payload wit.Value
	switch t.Kind {
	case wit.KindVariant:
		x, ok := v.(wit.Variant)
		if !ok {
			return 0, nil, badValue("%T is not a variant value", v)
		}
		d, payload = x.Case, x.Val
	case wit.KindEnum:
		x, ok := v.(wit.Enum)
		if !ok {
			return 0, nil, badValue("%T is not an enum value", v)
		}
		d = uint32(x)
	case wit.KindOption:
		x, ok := v.(wit.Option)
		if !ok {
			return 0, nil, badValue("%T is not an option value", v)
		}
		if x.Some {
			d, payload = 1, x.Val
		}
	case wit.KindResult:
		x, ok := v.(wit.Result)
		if !ok {
			return 0, nil, badValue("%T is not a result value", v)
		}
		if x.IsErr {
			d = 1
		}
		payload = x.Val
	}
	if d >= uint32(len(t.cases)) {
		return 0, nil, badValue("case %d out of range for %s with %d cases", d, t.Kind, len(t.cases))
	}
	return d, payload, nil
}

func asFlags(t *Type, v wit.Value) (uint32, error) {
	f, ok := v.(wit.Flags)
	if !ok {
		return 0, badValue("%T is not a flags value", v)
	}
	if t.nflags < 64 && uint64(f)>>uint(t.nflags) != 0 {
		return 0, badValue("flags value %#x sets bits beyond the %d labels", uint64(f), t.nflags)
	}
	return uint32(f), nil
}

// Store lowers v of type t into memory at ptr (which must be aligned and in
// range; Store checks).
func (cx *Context) Store(t *Type, v wit.Value, ptr uint32) error {
	if cx.Mem == nil {
		return errNoMemory
	}
	if ptr%t.Align != 0 {
		return trapf("pointer %d is not aligned to %d for %s", ptr, t.Align, t.Kind)
	}
	if uint64(ptr)+uint64(t.Size) > uint64(cx.Mem.Size()) {
		return trapf("range [%d, %d) out of bounds of memory of %d bytes", ptr, uint64(ptr)+uint64(t.Size), cx.Mem.Size())
	}
	return cx.store(t, v, ptr)
}

func (cx *Context) putInt(ptr uint32, u uint64, n uint32) error {
	binary.LittleEndian.PutUint64(cx.scratch[:], u)
	return cx.write(ptr, cx.scratch[:n])
}

func (cx *Context) store(t *Type, v wit.Value, ptr uint32) error {
	switch t.Kind {
	case wit.KindBool:
		b, ok := v.(bool)
		if !ok {
			return badValue("%T is not a bool", v)
		}
		var u uint64
		if b {
			u = 1
		}
		return cx.putInt(ptr, u, 1)
	case wit.KindU8, wit.KindU16, wit.KindU32, wit.KindU64:
		u, err := asUnsigned(v, uint(t.Size*8))
		if err != nil {
			return err
		}
		return cx.putInt(ptr, u, t.Size)
	case wit.KindS8, wit.KindS16, wit.KindS32, wit.KindS64:
		i, err := asSigned(v, uint(t.Size*8))
		if err != nil {
			return err
		}
		return cx.putInt(ptr, uint64(i), t.Size)
	case wit.KindF32:
		u, err := asF32(v)
		if err != nil {
			return err
		}
		return cx.putInt(ptr, uint64(u), 4)
	case wit.KindF64:
		u, err := asF64(v)
		if err != nil {
			return err
		}
		return cx.putInt(ptr, u, 8)
	case wit.KindChar:
		u, err := asChar(v)
		if err != nil {
			return err
		}
		return cx.putInt(ptr, uint64(u), 4)
	case wit.KindString:
		p, n, err := cx.lowerString(v)
		if err != nil {
			return err
		}
		return cx.putInt(ptr, uint64(p)|uint64(n)<<32, 8)
	case wit.KindList:
		if t.fixedLen > 0 {
			return cx.storeFixed(t, v, ptr)
		}
		p, n, err := cx.lowerList(t.elem, v)
		if err != nil {
			return err
		}
		return cx.putInt(ptr, uint64(p)|uint64(n)<<32, 8)
	case wit.KindRecord, wit.KindTuple:
		parts, err := asParts(t, v)
		if err != nil {
			return err
		}
		for i, f := range t.fields {
			if err := cx.store(f, parts[i], ptr+t.offsets[i]); err != nil {
				return at(err, fieldSeg(t, i))
			}
		}
		return nil
	case wit.KindFlags:
		u, err := asFlags(t, v)
		if err != nil {
			return err
		}
		return cx.putInt(ptr, uint64(u), t.Size)
	case wit.KindOwn, wit.KindBorrow:
		h, ok := v.(wit.Handle)
		if !ok {
			return badValue("%T is not a resource handle", v)
		}
		return cx.putInt(ptr, uint64(h), 4)
	case wit.KindVariant, wit.KindEnum, wit.KindOption, wit.KindResult:
		d, payload, err := caseOf(t, v)
		if err != nil {
			return err
		}
		if err := cx.putInt(ptr, uint64(d), t.discSize); err != nil {
			return err
		}
		if c := t.cases[d]; c != nil {
			if err := cx.store(c, payload, ptr+t.payload); err != nil {
				return at(err, caseSeg(t, d))
			}
		}
		return nil
	}
	return badValue("unsupported type %s", t.Kind)
}

func listLen(v wit.Value) (int, bool) {
	switch x := v.(type) {
	case []byte:
		return len(x), true
	case []wit.Value:
		return len(x), true
	}
	return 0, false
}

func (cx *Context) storeFixed(t *Type, v wit.Value, ptr uint32) error {
	n, ok := listLen(v)
	if !ok {
		return badValue("%T is not a list", v)
	}
	if n != int(t.fixedLen) {
		return badValue("fixed-size list of %d elements got %d", t.fixedLen, n)
	}
	return cx.storeElems(t.elem, v, ptr)
}

func (cx *Context) storeElems(e *Type, v wit.Value, ptr uint32) error {
	switch x := v.(type) {
	case []byte:
		if e.Kind != wit.KindU8 {
			return badValue("bytes given for a list of %s", e.Kind)
		}
		return cx.write(ptr, x)
	case []wit.Value:
		for i, ev := range x {
			if err := cx.store(e, ev, ptr+uint32(i)*e.Size); err != nil {
				return at(err, "["+strconv.Itoa(i)+"]")
			}
		}
		return nil
	}
	return badValue("%T is not a list", v)
}

func (cx *Context) lowerList(e *Type, v wit.Value) (uint32, uint32, error) {
	n, ok := listLen(v)
	if !ok {
		return 0, 0, badValue("%T is not a list", v)
	}
	total := uint64(n) * uint64(e.Size)
	if total > MaxListByteLength {
		return 0, 0, badValue("list of %d elements is too long", n)
	}
	p, err := cx.allocate(e.Align, uint32(total))
	if err != nil {
		return 0, 0, err
	}
	if err := cx.storeElems(e, v, p); err != nil {
		return 0, 0, err
	}
	return p, uint32(n), nil
}

// lowerString copies s into guest memory in the context's encoding and
// returns the pointer and the (tagged) code-unit count.
func (cx *Context) lowerString(v wit.Value) (uint32, uint32, error) {
	s, ok := v.(string)
	if !ok {
		return 0, 0, badValue("%T is not a string", v)
	}
	if !utf8.ValidString(s) {
		return 0, 0, badValue("string is not valid UTF-8")
	}
	if len(s) > MaxStringByteLength {
		return 0, 0, badValue("string of %d bytes is too long", len(s))
	}
	switch cx.Encoding {
	case UTF16:
		return cx.lowerUTF16(s, false)
	case Latin1UTF16:
		latin := true
		for _, r := range s {
			if r > 0xFF {
				latin = false
				break
			}
		}
		if !latin {
			return cx.lowerUTF16(s, true)
		}
		n := uint32(utf8.RuneCountInString(s))
		p, err := cx.allocate(2, n)
		if err != nil {
			return 0, 0, err
		}
		b := make([]byte, 0, n)
		for _, r := range s {
			b = append(b, byte(r))
		}
		return p, n, cx.write(p, b)
	}
	n := uint32(len(s))
	p, err := cx.allocate(1, n)
	if err != nil {
		return 0, 0, err
	}
	return p, n, cx.write(p, unsafe.Slice(unsafe.StringData(s), len(s)))
}

func (cx *Context) lowerUTF16(s string, tag bool) (uint32, uint32, error) {
	cx.units = cx.units[:0]
	for _, r := range s {
		cx.units = utf16.AppendRune(cx.units, r)
	}
	n := uint32(len(cx.units))
	p, err := cx.allocate(2, 2*n)
	if err != nil {
		return 0, 0, err
	}
	b := make([]byte, 2*n)
	for i, u := range cx.units {
		binary.LittleEndian.PutUint16(b[2*i:], u)
	}
	if tag {
		n |= 1 << 31
	}
	return p, n, cx.write(p, b)
}
