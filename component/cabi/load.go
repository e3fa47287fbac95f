package cabi

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aios-host/aios-host/wit"
)

const (
	canonicalNaN32 = 0x7fc00000
	canonicalNaN64 = 0x7ff8000000000000
)

func f32FromBits(u uint32) float32 {
	f := math.Float32frombits(u)
	if f != f {
		return math.Float32frombits(canonicalNaN32)
	}
	return f
}

func f64FromBits(u uint64) float64 {
	f := math.Float64frombits(u)
	if f != f {
		return math.Float64frombits(canonicalNaN64)
	}
	return f
}

func toChar(u uint32) (rune, error) {
	if u >= 0x110000 || (u >= 0xD800 && u <= 0xDFFF) {
		return 0, trapf("%#x is not a Unicode scalar value", u)
	}
	return rune(u), nil
}

// Load lifts a value of type t stored at ptr.
func (cx *Context) Load(t *Type, ptr uint32) (wit.Value, error) {
	if ptr%t.Align != 0 {
		return nil, trapf("pointer %d is not aligned to %d for %s", ptr, t.Align, t.Kind)
	}
	if err := cx.spend(t.host); err != nil {
		return nil, err
	}
	b, err := cx.read(ptr, t.Size)
	if err != nil {
		return nil, err
	}
	return cx.decode(t, b)
}

// decode lifts a value of type t from b, a view of exactly t.Size bytes of
// memory (already bounds-checked).
func (cx *Context) decode(t *Type, b []byte) (wit.Value, error) {
	le := binary.LittleEndian
	switch t.Kind {
	case wit.KindBool:
		return b[0] != 0, nil
	case wit.KindU8:
		return uint64(b[0]), nil
	case wit.KindS8:
		return int64(int8(b[0])), nil
	case wit.KindU16:
		return uint64(le.Uint16(b)), nil
	case wit.KindS16:
		return int64(int16(le.Uint16(b))), nil
	case wit.KindU32:
		return uint64(le.Uint32(b)), nil
	case wit.KindS32:
		return int64(int32(le.Uint32(b))), nil
	case wit.KindU64:
		return le.Uint64(b), nil
	case wit.KindS64:
		return int64(le.Uint64(b)), nil
	case wit.KindF32:
		return f32FromBits(le.Uint32(b)), nil
	case wit.KindF64:
		return f64FromBits(le.Uint64(b)), nil
	case wit.KindChar:
		return toChar(le.Uint32(b))
	case wit.KindOwn, wit.KindBorrow:
		return wit.Handle(le.Uint32(b)), nil
	case wit.KindString:
		return cx.loadString(le.Uint32(b), le.Uint32(b[4:]))
	case wit.KindList:
		if t.fixedLen > 0 {
			return cx.decodeElems(t.elem, b, t.fixedLen)
		}
		return cx.loadList(t.elem, le.Uint32(b), le.Uint32(b[4:]))
	case wit.KindRecord, wit.KindTuple:
		out := make([]wit.Value, len(t.fields))
		for i, f := range t.fields {
			off := t.offsets[i]
			v, err := cx.decode(f, b[off:off+f.Size])
			if err != nil {
				return nil, at(err, fieldSeg(t, i))
			}
			out[i] = v
		}
		if t.Kind == wit.KindRecord {
			return wit.Record(out), nil
		}
		return wit.Tuple(out), nil
	case wit.KindFlags:
		var u uint32
		switch t.Size {
		case 1:
			u = uint32(b[0])
		case 2:
			u = uint32(le.Uint16(b))
		default:
			u = le.Uint32(b)
		}
		return flagsValue(u, t.nflags), nil
	case wit.KindVariant, wit.KindEnum, wit.KindOption, wit.KindResult:
		var d uint32
		switch t.discSize {
		case 1:
			d = uint32(b[0])
		case 2:
			d = uint32(le.Uint16(b))
		default:
			d = le.Uint32(b)
		}
		if d >= uint32(len(t.cases)) {
			return nil, trapf("discriminant %d out of range for %s with %d cases", d, t.Kind, len(t.cases))
		}
		var payload wit.Value
		if c := t.cases[d]; c != nil {
			v, err := cx.decode(c, b[t.payload:t.payload+c.Size])
			if err != nil {
				return nil, at(err, caseSeg(t, d))
			}
			payload = v
		}
		return makeCase(t, d, payload), nil
	}
	return nil, badValue("unsupported type %s", t.Kind)
}

// flagsValue keeps only the declared bits (unpack_flags_from_int ignores the rest).
func flagsValue(u uint32, n int) wit.Flags {
	if n < 32 {
		u &= 1<<uint(n) - 1
	}
	return wit.Flags(u)
}

func makeCase(t *Type, d uint32, payload wit.Value) wit.Value {
	switch t.Kind {
	case wit.KindEnum:
		return wit.Enum(d)
	case wit.KindOption:
		return wit.Option{Some: d == 1, Val: payload}
	case wit.KindResult:
		return wit.Result{IsErr: d == 1, Val: payload}
	}
	return wit.Variant{Case: d, Val: payload}
}

func (cx *Context) loadString(ptr, tagged uint32) (wit.Value, error) {
	var align, n uint32
	enc := cx.Encoding
	switch enc {
	case UTF8:
		align, n = 1, tagged
	case UTF16:
		align, n = 2, tagged
		if n > MaxStringByteLength/2 {
			return nil, trapf("string of %d code units is too long", n)
		}
		n *= 2
	case Latin1UTF16:
		align = 2
		if tagged&(1<<31) != 0 {
			enc, n = UTF16, tagged&^(1<<31)
			if n > MaxStringByteLength/2 {
				return nil, trapf("string of %d code units is too long", n)
			}
			n *= 2
		} else {
			n = tagged
		}
	}
	if n > MaxStringByteLength {
		return nil, trapf("string of %d bytes is too long", n)
	}
	if ptr%align != 0 {
		return nil, trapf("string pointer %d is not aligned to %d", ptr, align)
	}
	if err := cx.spend(uint64(n)); err != nil {
		return nil, err
	}
	b, err := cx.read(ptr, n)
	if err != nil {
		return nil, at(err, "string")
	}
	switch enc {
	case UTF8:
		if !utf8.Valid(b) {
			return nil, trapf("string at %d is not valid UTF-8", ptr)
		}
		return string(b), nil
	case UTF16:
		return decodeUTF16(b, ptr)
	default: // latin1
		return decodeLatin1(b), nil
	}
}

func decodeUTF16(b []byte, ptr uint32) (string, error) {
	out := make([]byte, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u := rune(binary.LittleEndian.Uint16(b[i:]))
		switch {
		case u < 0xD800 || u > 0xDFFF:
			out = utf8.AppendRune(out, u)
		case u <= 0xDBFF && i+3 < len(b):
			u2 := rune(binary.LittleEndian.Uint16(b[i+2:]))
			if u2 < 0xDC00 || u2 > 0xDFFF {
				return "", trapf("string at %d: unpaired UTF-16 surrogate at code unit %d", ptr, i/2)
			}
			out = utf8.AppendRune(out, utf16.DecodeRune(u, u2))
			i += 2
		default:
			return "", trapf("string at %d: unpaired UTF-16 surrogate at code unit %d", ptr, i/2)
		}
	}
	return string(out), nil
}

func decodeLatin1(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	out := make([]byte, 0, len(b)*2)
	for _, c := range b {
		out = utf8.AppendRune(out, rune(c))
	}
	return string(out)
}

func (cx *Context) loadList(e *Type, ptr, n uint32) (wit.Value, error) {
	total := uint64(n) * uint64(e.Size)
	if total > MaxListByteLength {
		return nil, trapf("list of %d elements of %d bytes is too long", n, e.Size)
	}
	if ptr%e.Align != 0 {
		return nil, trapf("list pointer %d is not aligned to %d", ptr, e.Align)
	}
	// The host memory the elements take is charged before any is made:
	// their wit.Value slots and their own parts (Type.host), besides the
	// guest bytes read.
	cost := total
	if e.Kind != wit.KindU8 {
		cost += uint64(n) * (costSlot + e.host)
	}
	if err := cx.spend(cost); err != nil {
		return nil, err
	}
	b, err := cx.read(ptr, uint32(total))
	if err != nil {
		return nil, at(err, "list")
	}
	if e.Kind == wit.KindU8 {
		return append([]byte(nil), b...), nil
	}
	return cx.decodeElems(e, b, n)
}

func (cx *Context) decodeElems(e *Type, b []byte, n uint32) (wit.Value, error) {
	if e.Kind == wit.KindU8 {
		return append([]byte(nil), b[:n]...), nil
	}
	out := make([]wit.Value, n)
	for i := uint32(0); i < n; i++ {
		off := i * e.Size
		v, err := cx.decode(e, b[off:off+e.Size])
		if err != nil {
			return nil, at(err, "["+strconv.Itoa(int(i))+"]")
		}
		out[i] = v
	}
	return out, nil
}

func fieldSeg(t *Type, i int) string {
	if t.Kind == wit.KindRecord && t.W != nil && i < len(t.W.Fields) {
		return "." + t.W.Fields[i].Name
	}
	return "[" + strconv.Itoa(i) + "]"
}

func caseSeg(t *Type, d uint32) string {
	switch t.Kind {
	case wit.KindVariant:
		if t.W != nil && int(d) < len(t.W.Cases) {
			return "." + t.W.Cases[d].Name
		}
	case wit.KindOption:
		return ".some"
	case wit.KindResult:
		if d == 0 {
			return ".ok"
		}
		return ".err"
	}
	return "." + strconv.Itoa(int(d))
}
