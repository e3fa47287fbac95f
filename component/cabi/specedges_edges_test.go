package cabi

import (
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/wit"
)

// TestSpecEdges checks edges of definitions.py that the other tests
// pass by: two high surrogates and a latin1+utf16 string of zero UTF-16
// units (tag alone) at an odd address; the latin1+utf16 lowering's choice
// (all code points under 256 as latin1, else tagged UTF-16); the
// discriminant of an enum of 257 cases (u16); flags of exactly 32 labels
// (every bit kept, none beyond lowered); a bool from 2 (true, as
// convert_int_to_bool); chars at the edges of the scalar values; a list
// whose end passes 2^32 or whose byte length does; a u32 case in an i64
// slot of a variant (wrap_i64_to_i32); the layout of a record of mixed
// fields with a variant.
func TestSpecEdges(t *testing.T) {
	le := binary.LittleEndian
	cx, m := newCx(1 << 16)
	str := mustCompile(t, prim(wit.KindString))
	lift := func(ct *Type, vals ...uint64) (wit.Value, error) { return cx.liftFlat(ct, &flatIter{vals: vals}) }
	wantTrap := func(what string, v wit.Value, err error, msg string) {
		t.Helper()
		if !IsTrap(err) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v %v, want a trap saying %q", what, v, err, msg)
		}
	}
	wantValue := func(what string, v wit.Value, err error, want wit.Value) {
		t.Helper()
		if err != nil || !reflect.DeepEqual(v, want) {
			t.Errorf("%s: %#v %v, want %#v", what, v, err, want)
		}
	}

	cx.Encoding = UTF16
	le.PutUint16(m.b[1024:], 0xD800)
	le.PutUint16(m.b[1026:], 0xD800)
	v, err := lift(str, 1024, 2)
	wantTrap("utf16 two high surrogates", v, err, "unpaired UTF-16 surrogate at code unit 0")
	cx.Encoding = Latin1UTF16
	v, err = lift(str, 1024, 1<<31)
	wantValue("latin1+utf16 tag alone", v, err, "")
	v, err = lift(str, 1025, 1<<31)
	wantTrap("latin1+utf16 tag alone at an odd address", v, err, "not aligned to 2")
	for s, want := range map[string][]uint64{"\u00ffa": {2, 0xff, 'a'}, "\u00ff\u0100": {2 | 1<<31, 0xff, 0, 0x00, 0x01}} {
		out, err := cx.lowerFlat(str, s, nil)
		if err != nil || out[1] != want[0] || out[0]%2 != 0 {
			t.Errorf("lower %q as latin1+utf16: %v %v, want length %#x at an even address", s, out, err, want[0])
			continue
		}
		got := m.b[out[0] : out[0]+uint64(len(want)-1)]
		for i, c := range want[1:] {
			if uint64(got[i]) != c {
				t.Errorf("lower %q as latin1+utf16: bytes % x, want %v", s, got, want[1:])
				break
			}
		}
	}
	cx.Encoding = UTF8

	en := mustCompile(t, &wit.Type{Kind: wit.KindEnum, Names: names(257)})
	if en.Size != 2 || en.Align != 2 {
		t.Errorf("enum of 257 cases: size %d align %d, want 2 2", en.Size, en.Align)
	}
	le.PutUint16(m.b[2048:], 256)
	v, err = cx.Load(en, 2048)
	wantValue("enum case 256", v, err, wit.Enum(256))
	le.PutUint16(m.b[2048:], 257)
	v, err = cx.Load(en, 2048)
	wantTrap("enum case 257", v, err, "discriminant 257 out of range")

	fl := mustCompile(t, &wit.Type{Kind: wit.KindFlags, Names: names(32)})
	le.PutUint32(m.b[2048:], 0xFFFFFFFF)
	v, err = cx.Load(fl, 2048)
	wantValue("flags of 32 labels, all set", v, err, wit.Flags(0xFFFFFFFF))
	if _, err := cx.lowerFlat(fl, wit.Flags(1<<32|1), nil); err == nil || IsTrap(err) {
		t.Errorf("lowering bit 32 of flags of 32 labels: %v, want a value error", err)
	}

	v, err = lift(mustCompile(t, prim(wit.KindBool)), 2)
	wantValue("bool from 2", v, err, true)
	ch := mustCompile(t, prim(wit.KindChar))
	for _, c := range []uint64{0xD800, 0xDFFF, 0x110000, 0xFFFFFFFF} {
		v, err = lift(ch, c)
		wantTrap("char", v, err, "not a Unicode scalar value")
	}
	v, err = lift(ch, 0x10FFFF)
	wantValue("char 0x10ffff", v, err, rune(0x10FFFF))

	l := mustCompile(t, list(prim(wit.KindU32)))
	v, err = lift(l, 0xFFFFFFF0, 0x10)
	wantTrap("list ending past 2^32", v, err, "out of bounds")
	v, err = lift(l, 0x10, 0x40000000)
	wantTrap("list of 2^32 bytes", v, err, "too long")

	vt := mustCompile(t, variant(prim(wit.KindU32), prim(wit.KindU64)))
	v, err = lift(vt, 0, 1<<32|5)
	wantValue("u32 case in an i64 slot", v, err, wit.Variant{Case: 0, Val: uint64(5)})

	r := mustCompile(t, record(prim(wit.KindU8), prim(wit.KindU64), prim(wit.KindU16), variant(prim(wit.KindU8), prim(wit.KindF64))))
	if r.Size != 40 || r.Align != 8 || !reflect.DeepEqual(r.offsets, []uint32{0, 8, 16, 24}) ||
		!reflect.DeepEqual(r.Flat, []CoreType{I32, I64, I32, I32, I64}) {
		t.Errorf("record{u8, u64, u16, variant{u8, f64}}: size %d align %d offsets %v flat %v", r.Size, r.Align, r.offsets, r.Flat)
	}
}
