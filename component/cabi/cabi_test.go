package cabi

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/wit"
)

// testMem is a growable byte-slice memory with a bump allocator.
type testMem struct {
	b    []byte
	next uint32
}

func (m *testMem) Read(off, n uint32) ([]byte, bool) {
	if uint64(off)+uint64(n) > uint64(len(m.b)) {
		return nil, false
	}
	return m.b[off : off+n], true
}

func (m *testMem) Write(off uint32, b []byte) bool {
	if uint64(off)+uint64(len(b)) > uint64(len(m.b)) {
		return false
	}
	copy(m.b[off:], b)
	return true
}

func (m *testMem) Size() uint32 { return uint32(len(m.b)) }

func (m *testMem) realloc(old, oldSize, align, size uint32) (uint32, error) {
	p := alignTo(m.next, align)
	m.next = p + size
	if old != 0 {
		copy(m.b[p:], m.b[old:old+min(oldSize, size)])
	}
	return p, nil
}

func newCx(size int) (*Context, *testMem) {
	m := &testMem{b: make([]byte, size), next: 8}
	cx := &Context{Mem: m, Realloc: m.realloc}
	cx.Reset()
	return cx, m
}

func prim(k wit.Kind) *wit.Type { return wit.Primitive(k) }

func record(fields ...*wit.Type) *wit.Type {
	t := &wit.Type{Kind: wit.KindRecord, Name: "r"}
	for i, f := range fields {
		t.Fields = append(t.Fields, wit.Field{Name: string(rune('a' + i)), Type: f})
	}
	return t
}

func variant(cases ...*wit.Type) *wit.Type {
	t := &wit.Type{Kind: wit.KindVariant, Name: "v"}
	for i, c := range cases {
		t.Cases = append(t.Cases, wit.Case{Name: string(rune('a' + i)), Type: c})
	}
	return t
}

func list(e *wit.Type) *wit.Type         { return &wit.Type{Kind: wit.KindList, Elem: e} }
func option(e *wit.Type) *wit.Type       { return &wit.Type{Kind: wit.KindOption, Elem: e} }
func result(ok, err *wit.Type) *wit.Type { return &wit.Type{Kind: wit.KindResult, Ok: ok, Err: err} }
func tuple(ts ...*wit.Type) *wit.Type    { return &wit.Type{Kind: wit.KindTuple, Tuple: ts} }

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "n" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
	}
	return out
}

func mustCompile(t testing.TB, w *wit.Type) *Type {
	t.Helper()
	ct, err := NewCompiler().Compile(w)
	if err != nil {
		t.Fatal(err)
	}
	return ct
}

// Layouts computed by hand from CanonicalABI.md (alignment, elem_size, flatten).
func TestLayout(t *testing.T) {
	tests := []struct {
		name        string
		typ         *wit.Type
		size, align uint32
		flat        string
	}{
		{"bool", prim(wit.KindBool), 1, 1, "i32"},
		{"u16", prim(wit.KindU16), 2, 2, "i32"},
		{"s64", prim(wit.KindS64), 8, 8, "i64"},
		{"f32", prim(wit.KindF32), 4, 4, "f32"},
		{"char", prim(wit.KindChar), 4, 4, "i32"},
		{"string", prim(wit.KindString), 8, 4, "i32 i32"},
		{"list<u64>", list(prim(wit.KindU64)), 8, 4, "i32 i32"},
		{"list<u16; 3>", &wit.Type{Kind: wit.KindList, Elem: prim(wit.KindU16), Len: 3}, 6, 2, "i32 i32 i32"},
		// a:u8 @0, b:u32 @4, c:u16 @8 → 10 → aligned to 4 = 12
		{"record{u8,u32,u16}", record(prim(wit.KindU8), prim(wit.KindU32), prim(wit.KindU16)), 12, 4, "i32 i32 i32"},
		// u8 @0, u64 @8 → 16
		{"tuple<u8,u64>", tuple(prim(wit.KindU8), prim(wit.KindU64)), 16, 8, "i32 i64"},
		// disc u8 @0, payload @8 (max align 8), max size 8 → 16; flat i32 + join(i64, f32)=i64
		{"variant{_,u64,f32}", variant(nil, prim(wit.KindU64), prim(wit.KindF32)), 16, 8, "i32 i64"},
		{"option<f32>", option(prim(wit.KindF32)), 8, 4, "i32 f32"},
		{"option<string>", option(prim(wit.KindString)), 12, 4, "i32 i32 i32"},
		// join(i32 from u32, f32) = i32
		{"result<u32,f32>", result(prim(wit.KindU32), prim(wit.KindF32)), 8, 4, "i32 i32"},
		// join(f64, f32) = i64
		{"result<f64,f32>", result(prim(wit.KindF64), prim(wit.KindF32)), 16, 8, "i32 i64"},
		{"result", result(nil, nil), 1, 1, "i32"},
		{"result<string,string>", result(prim(wit.KindString), prim(wit.KindString)), 12, 4, "i32 i32 i32"},
		{"enum(3)", &wit.Type{Kind: wit.KindEnum, Names: names(3)}, 1, 1, "i32"},
		{"enum(300)", &wit.Type{Kind: wit.KindEnum, Names: names(300)}, 2, 2, "i32"},
		{"flags(8)", &wit.Type{Kind: wit.KindFlags, Names: names(8)}, 1, 1, "i32"},
		{"flags(9)", &wit.Type{Kind: wit.KindFlags, Names: names(9)}, 2, 2, "i32"},
		{"flags(17)", &wit.Type{Kind: wit.KindFlags, Names: names(17)}, 4, 4, "i32"},
		// record{s: string, n: u64, o: option<u8>}: s @0..8, n @8..16, o @16..18 → 24
		{"record{string,u64,option<u8>}", record(prim(wit.KindString), prim(wit.KindU64), option(prim(wit.KindU8))), 24, 8, "i32 i32 i64 i32 i32"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ct := mustCompile(t, tc.typ)
			var fl []string
			for _, f := range ct.Flat {
				fl = append(fl, f.String())
			}
			if ct.Size != tc.size || ct.Align != tc.align || strings.Join(fl, " ") != tc.flat {
				t.Fatalf("size %d align %d flat %q, want %d %d %q", ct.Size, ct.Align, strings.Join(fl, " "), tc.size, tc.align, tc.flat)
			}
		})
	}
}

func TestCompileRefuses(t *testing.T) {
	tests := []struct {
		typ  *wit.Type
		want string
	}{
		{&wit.Type{Kind: wit.KindOwn, Resource: &wit.Resource{Name: "blob"}}, "resource"},
		{&wit.Type{Kind: wit.KindFuture}, "future"},
		{&wit.Type{Kind: wit.KindFlags, Names: names(33)}, "flags"},
		{&wit.Type{Kind: wit.KindRecord}, "without fields"},
		{list(&wit.Type{Kind: wit.KindStream}), "stream"},
	}
	for _, tc := range tests {
		_, err := NewCompiler().Compile(tc.typ)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want it to mention %q", tc.typ.Kind, err, tc.want)
		}
	}
}

func kitchenType() *wit.Type {
	return record(
		prim(wit.KindString),
		list(prim(wit.KindU8)),
		list(record(prim(wit.KindS16), prim(wit.KindChar))),
		variant(nil, prim(wit.KindF64), prim(wit.KindString)),
		&wit.Type{Kind: wit.KindEnum, Names: names(3)},
		&wit.Type{Kind: wit.KindFlags, Names: names(10)},
		option(list(prim(wit.KindString))),
		result(prim(wit.KindU32), prim(wit.KindString)),
		tuple(prim(wit.KindBool), prim(wit.KindF32), prim(wit.KindS64)),
		&wit.Type{Kind: wit.KindList, Elem: prim(wit.KindU8), Len: 2},
	)
}

func kitchenValue() wit.Value {
	return wit.Record{
		"héllo ✓",
		[]byte{1, 2, 3},
		[]wit.Value{wit.Record{int64(-5), rune('λ')}, wit.Record{int64(7), rune('😀')}},
		wit.Variant{Case: 2, Val: "payload"},
		wit.Enum(2),
		wit.Flags(0x201),
		wit.Option{Some: true, Val: []wit.Value{"a", ""}},
		wit.Result{IsErr: true, Val: "bad"},
		wit.Tuple{true, float32(1.5), int64(math.MinInt64)},
		[]byte{9, 8},
	}
}

func TestRoundTripMemoryAndFlat(t *testing.T) {
	for _, enc := range []StringEncoding{UTF8, UTF16, Latin1UTF16} {
		t.Run(enc.String(), func(t *testing.T) {
			ct := mustCompile(t, kitchenType())
			v := kitchenValue()
			cx, _ := newCx(1 << 16)
			cx.Encoding = enc
			p, err := cx.allocate(ct.Align, ct.Size)
			if err != nil {
				t.Fatal(err)
			}
			if err := cx.Store(ct, v, p); err != nil {
				t.Fatal(err)
			}
			got, err := cx.Load(ct, p)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, v) {
				t.Fatalf("memory round trip:\n got %#v\nwant %#v", got, v)
			}
			flat, err := cx.lowerFlat(ct, v, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(flat) != len(ct.Flat) && len(ct.Flat) <= MaxFlatParams {
				t.Fatalf("lowered %d core values, flattening says %d", len(flat), len(ct.Flat))
			}
			got, err = cx.liftFlat(ct, &flatIter{vals: flat})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, v) {
				t.Fatalf("flat round trip:\n got %#v\nwant %#v", got, v)
			}
		})
	}
}

// Byte images written by hand from the layout rules.
func TestStoreBytes(t *testing.T) {
	cx, m := newCx(256)
	// record{a: u8, b: u32, c: u16} = {1, 0x01020304, 0xBEEF} at 16
	ct := mustCompile(t, record(prim(wit.KindU8), prim(wit.KindU32), prim(wit.KindU16)))
	if err := cx.Store(ct, wit.Record{uint64(1), uint64(0x01020304), uint64(0xBEEF)}, 16); err != nil {
		t.Fatal(err)
	}
	want := []byte{1, 0, 0, 0, 4, 3, 2, 1, 0xEF, 0xBE, 0, 0}
	if !bytes.Equal(m.b[16:28], want) {
		t.Fatalf("record bytes % x, want % x", m.b[16:28], want)
	}
	// variant{_, u64, f32} case 2 = 1.0 at 32: disc 02, payload at +8
	vt := mustCompile(t, variant(nil, prim(wit.KindU64), prim(wit.KindF32)))
	if err := cx.Store(vt, wit.Variant{Case: 2, Val: float32(1)}, 32); err != nil {
		t.Fatal(err)
	}
	want = []byte{2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x3f}
	if !bytes.Equal(m.b[32:44], want) {
		t.Fatalf("variant bytes % x, want % x", m.b[32:44], want)
	}
	// variant flat: f32 payload in an i64 slot is its bits, zero-extended.
	flat, err := cx.lowerFlat(vt, wit.Variant{Case: 2, Val: float32(1)}, nil)
	if err != nil || !reflect.DeepEqual(flat, []uint64{2, 0x3f800000}) {
		t.Fatalf("variant flat %x %v", flat, err)
	}
	// latin1+utf16: a non-latin1 string is utf16 with the tag bit.
	cx.Encoding = Latin1UTF16
	p, n, err := cx.lowerString("aλ")
	if err != nil || n != 2|1<<31 || !bytes.Equal(m.b[p:p+4], []byte{'a', 0, 0xbb, 0x03}) {
		t.Fatalf("latin1+utf16 lower: p %d n %#x err %v bytes % x", p, n, err, m.b[p:p+4])
	}
	p, n, err = cx.lowerString("é")
	if err != nil || n != 1 || m.b[p] != 0xe9 {
		t.Fatalf("latin1 lower: n %#x err %v", n, err)
	}
}

func TestNaNCanonicalization(t *testing.T) {
	cx, _ := newCx(64)
	f32 := mustCompile(t, prim(wit.KindF32))
	v, err := cx.liftFlat(f32, &flatIter{vals: []uint64{0x7fa00001}})
	if err != nil || math.Float32bits(v.(float32)) != canonicalNaN32 {
		t.Fatalf("f32 NaN lifted as %#x %v", math.Float32bits(v.(float32)), err)
	}
	f64 := mustCompile(t, prim(wit.KindF64))
	v, err = cx.liftFlat(f64, &flatIter{vals: []uint64{0xfff0000000000001}})
	if err != nil || math.Float64bits(v.(float64)) != canonicalNaN64 {
		t.Fatalf("f64 NaN lifted as %#x %v", math.Float64bits(v.(float64)), err)
	}
}

func TestHostileLift(t *testing.T) {
	str := prim(wit.KindString)
	tests := []struct {
		name string
		typ  *wit.Type
		enc  StringEncoding
		flat []uint64
		mem  func([]byte)
		want string
	}{
		{"string out of range", str, UTF8, []uint64{60, 10}, nil, "out of bounds"},
		{"string huge length", str, UTF8, []uint64{0, 0xFFFFFFFF}, nil, "too long"},
		{"invalid utf8", str, UTF8, []uint64{0, 2}, func(b []byte) { b[0], b[1] = 0xff, 0xfe }, "UTF-8"},
		{"unaligned utf16", str, UTF16, []uint64{1, 1}, nil, "aligned"},
		{"unpaired surrogate", str, UTF16, []uint64{0, 1}, func(b []byte) { b[0], b[1] = 0x00, 0xd8 }, "surrogate"},
		{"list out of range", list(prim(wit.KindU32)), UTF8, []uint64{0, 1 << 20}, nil, "out of bounds"},
		{"list unaligned", list(prim(wit.KindU32)), UTF8, []uint64{2, 1}, nil, "aligned"},
		{"list overflow", list(prim(wit.KindU64)), UTF8, []uint64{0, 0xFFFFFFFF}, nil, "too long"},
		{"bad char", prim(wit.KindChar), UTF8, []uint64{0xD800}, nil, "scalar"},
		{"char too big", prim(wit.KindChar), UTF8, []uint64{0x110000}, nil, "scalar"},
		{"bad discriminant", variant(nil, prim(wit.KindU8)), UTF8, []uint64{2, 0}, nil, "discriminant"},
		{"bad option", option(prim(wit.KindU8)), UTF8, []uint64{7, 0}, nil, "discriminant"},
		{"bad enum", &wit.Type{Kind: wit.KindEnum, Names: names(2)}, UTF8, []uint64{2}, nil, "discriminant"},
		{"bad discriminant in list", list(result(nil, nil)), UTF8, []uint64{0, 2}, func(b []byte) { b[1] = 9 }, "[1]"},
		{"too few values", prim(wit.KindString), UTF8, []uint64{0}, nil, "too few"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cx, m := newCx(64)
			cx.Encoding = tc.enc
			if tc.mem != nil {
				tc.mem(m.b)
			}
			ct := mustCompile(t, tc.typ)
			_, err := cx.liftFlat(ct, &flatIter{vals: tc.flat})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !IsTrap(err) {
				t.Fatalf("err = %v, want a trap mentioning %q", err, tc.want)
			}
		})
	}
}

func TestLiftBudget(t *testing.T) {
	// 1000 list elements all pointing at the same 1 KiB string: the budget stops it.
	cx, m := newCx(1 << 16)
	for i := 0; i < 1000; i++ {
		off := 2048 + 8*i
		m.b[off+1] = 0 // ptr 0
		m.b[off+5] = 4 // len 1024
	}
	cx.Budget = 512 << 10
	ct := mustCompile(t, list(prim(wit.KindString)))
	for i := range 1024 {
		m.b[i] = 'x'
	}
	_, err := cx.liftFlat(ct, &flatIter{vals: []uint64{2048, 1000}})
	if err == nil || !strings.Contains(err.Error(), "budget") {
		t.Fatalf("err = %v, want budget trap", err)
	}
}

func TestLowerBadValues(t *testing.T) {
	tests := []struct {
		typ  *wit.Type
		v    wit.Value
		want string
	}{
		{prim(wit.KindU8), uint64(256), "out of range"},
		{prim(wit.KindS8), int64(-129), "out of range"},
		{prim(wit.KindU32), "x", "not an unsigned"},
		{prim(wit.KindChar), rune(0xD800), "scalar"},
		{prim(wit.KindString), "\xff", "UTF-8"},
		{record(prim(wit.KindU8)), wit.Record{}, "parts"},
		{variant(nil), wit.Variant{Case: 3}, "out of range"},
		{&wit.Type{Kind: wit.KindFlags, Names: names(3)}, wit.Flags(8), "beyond"},
		{list(prim(wit.KindU16)), []byte{1}, "bytes"},
		{record(prim(wit.KindBool), list(prim(wit.KindU8))), wit.Record{true, 3}, ".b"},
	}
	for _, tc := range tests {
		cx, _ := newCx(256)
		ct := mustCompile(t, tc.typ)
		_, err := cx.lowerFlat(ct, tc.v, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %#v: err %v, want %q", tc.typ.Kind, tc.v, err, tc.want)
		}
		if err := cx.Store(ct, tc.v, 16); err == nil {
			t.Errorf("%s %#v: Store accepted a bad value", tc.typ.Kind, tc.v)
		}
	}
}

func TestFuncSpill(t *testing.T) {
	var ps []wit.Param
	var args []wit.Value
	for i := range 17 {
		ps = append(ps, wit.Param{Name: "p" + string(rune('a'+i)), Type: prim(wit.KindU32)})
		args = append(args, uint64(i))
	}
	res := record(prim(wit.KindString), prim(wit.KindU64))
	wf := &wit.Func{Name: "many", Params: ps, Result: res}
	f, err := NewFunc(NewCompiler(), wf)
	if err != nil {
		t.Fatal(err)
	}
	pl, rl := f.CoreSignature(false)
	if !reflect.DeepEqual(pl, []CoreType{I32}) || !reflect.DeepEqual(rl, []CoreType{I32}) {
		t.Fatalf("lift signature %v -> %v", pl, rl)
	}
	pl, rl = f.CoreSignature(true)
	if !reflect.DeepEqual(pl, []CoreType{I32, I32}) || len(rl) != 0 {
		t.Fatalf("lower signature %v -> %v", pl, rl)
	}
	cx, m := newCx(4096)
	flat, err := f.LowerArgs(cx, args, nil)
	if err != nil || len(flat) != 1 {
		t.Fatalf("LowerArgs %v %v", flat, err)
	}
	if p := uint32(flat[0]); m.b[p+4*16] != 16 {
		t.Fatalf("17th param not spilled at +64")
	}
	back, err := f.LiftArgs(cx, flat)
	if err != nil || !reflect.DeepEqual(back, args) {
		t.Fatalf("LiftArgs %v %v", back, err)
	}
	// host import returns through a return pointer supplied by the guest.
	rv := wit.Record{"ok", uint64(1 << 40)}
	retp := uint32(1024)
	out, err := f.LowerResult(cx, rv, append(flat, uint64(retp)), nil)
	if err != nil || len(out) != 0 {
		t.Fatalf("LowerResult %v %v", out, err)
	}
	got, err := f.LiftResult(cx, []uint64{uint64(retp)})
	if err != nil || !reflect.DeepEqual(got, rv) {
		t.Fatalf("LiftResult %#v %v", got, err)
	}
	if _, err := f.LiftResult(cx, []uint64{3}); err == nil || !IsTrap(err) {
		t.Fatalf("unaligned return pointer accepted: %v", err)
	}
	if _, err := f.LowerResult(cx, rv, []uint64{0xFFFFFFF0}, nil); err == nil {
		t.Fatalf("out-of-range return pointer accepted")
	}
}

func FuzzLift(f *testing.F) {
	types := []*wit.Type{kitchenType(), prim(wit.KindString), list(list(prim(wit.KindString))),
		variant(nil, prim(wit.KindF64), list(prim(wit.KindU16))), option(result(prim(wit.KindChar), tuple(prim(wit.KindU8), prim(wit.KindS64))))}
	c := NewCompiler()
	var cts []*Type
	for _, w := range types {
		ct, err := c.Compile(w)
		if err != nil {
			f.Fatal(err)
		}
		cts = append(cts, ct)
	}
	f.Add(uint8(0), uint8(0), uint32(0), []byte("hello world, this is some memory"))
	f.Add(uint8(1), uint8(1), uint32(4), []byte{4, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c', 0})
	f.Add(uint8(2), uint8(2), uint32(8), bytes.Repeat([]byte{0, 0, 0, 0, 1, 0, 0, 0}, 8))
	f.Add(uint8(3), uint8(0), uint32(0), []byte{1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, ti, enc uint8, ptr uint32, mem []byte) {
		ct := cts[int(ti)%len(cts)]
		m := &testMem{b: append([]byte(nil), mem...)}
		cx := &Context{Mem: m, Encoding: StringEncoding(enc % 3)}
		cx.Reset()
		cx.Budget = 1 << 20
		// Whatever lifts lowers back to itself: store it in a fresh
		// memory and load it again (%#v: a NaN equals itself).
		if v, err := cx.Load(ct, ptr%64); err == nil {
			cx2, _ := newCx(4 << 20)
			cx2.Encoding = cx.Encoding
			p, err := cx2.allocate(ct.Align, ct.Size)
			if err != nil {
				t.Fatal(err)
			}
			if err := cx2.Store(ct, v, p); err != nil {
				t.Fatalf("lifted %#v does not store: %v", v, err)
			}
			if got, err := cx2.Load(ct, p); err != nil || fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", v) {
				t.Fatalf("memory round trip of %#v: %#v, %v", v, got, err)
			}
		}
		var flat []uint64
		for i := 0; i+4 <= len(mem) && len(flat) < 20; i += 4 {
			flat = append(flat, uint64(mem[i])|uint64(mem[i+1])<<8|uint64(mem[i+2])<<16|uint64(mem[i+3])<<24)
		}
		if v, err := cx.liftFlat(ct, &flatIter{vals: flat}); err == nil {
			cx2, _ := newCx(4 << 20)
			cx2.Encoding = cx.Encoding
			out, err := cx2.lowerFlat(ct, v, nil)
			if err != nil {
				t.Fatalf("lifted %#v does not lower: %v", v, err)
			}
			if got, err := cx2.liftFlat(ct, &flatIter{vals: out}); err != nil || fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", v) {
				t.Fatalf("flat round trip of %#v: %#v, %v", v, got, err)
			}
		}
	})
}

// BenchmarkLiftLowerRecord: lower a record { name: string, times: u32 }
// argument (realloc + copy) and lift a result<string, string> from a return
// area, the Canonical ABI work of one call of the pipeline benchmark.
func BenchmarkLiftLowerRecord(b *testing.B) {
	rec := &wit.Type{Kind: wit.KindRecord, Name: "greeting", Fields: []wit.Field{{Name: "name", Type: prim(wit.KindString)}, {Name: "times", Type: prim(wit.KindU32)}}}
	f, err := NewFunc(NewCompiler(), &wit.Func{Name: "hello", Params: []wit.Param{{Name: "g", Type: rec}}, Result: result(prim(wit.KindString), prim(wit.KindString))})
	if err != nil {
		b.Fatal(err)
	}
	cx, m := newCx(1 << 16)
	args := []wit.Value{wit.Record{"wörld", uint64(2)}}
	// A return area at 1024: ok, "hello, wörld" at 2048.
	copy(m.b[2048:], "hello, wörld")
	copy(m.b[1024:], []byte{0, 0, 0, 0, 0, 8, 0, 0, 13, 0, 0, 0})
	flat := make([]uint64, 0, 4)
	b.ReportAllocs()
	for b.Loop() {
		m.next = 8
		cx.Reset()
		out, err := f.LowerArgs(cx, args, flat[:0])
		if err != nil || len(out) != 3 {
			b.Fatal(err)
		}
		v, err := f.LiftResult(cx, []uint64{1024})
		if err != nil || v.(wit.Result).Val != "hello, wörld" {
			b.Fatal(v, err)
		}
	}
}
