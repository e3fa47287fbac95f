package wire_test

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/wire"
)

func sampleValues() []any {
	return []any{
		nil, true, false, int64(0), int64(1), int64(-1), int64(127), int64(128), int64(-32), int64(-33),
		int64(255), int64(256), int64(-128), int64(-129), int64(65535), int64(65536), int64(-32768), int64(-32769),
		int64(math.MaxUint32), int64(math.MaxUint32 + 1), int64(math.MinInt32), int64(math.MinInt32 - 1),
		int64(math.MaxInt64), int64(math.MinInt64), 1.5, -0.25, 1e300,
		"", "héllo ☃", strings.Repeat("x", 31), strings.Repeat("y", 32), strings.Repeat("z", 256), strings.Repeat("w", 70000),
		[]any{}, []any{int64(1), "two", []any{nil}}, make([]any, 20),
		map[string]any{}, map[string]any{"a": int64(1), "b": map[string]any{"c": []any{true, 2.5}}},
	}
}

func TestRoundTripAndReference(t *testing.T) {
	for i, v := range sampleValues() {
		if s, ok := v.([]any); ok && len(s) == 20 {
			for j := range s {
				s[j] = int64(j)
			}
		}
		enc, err := wire.AppendValue(nil, v)
		if err != nil {
			t.Fatalf("#%d %v: encode: %v", i, v, err)
		}
		got, err := wire.DecodeValue(enc)
		if err != nil {
			t.Fatalf("#%d: decode: %v", i, err)
		}
		if !reflect.DeepEqual(got, v) {
			t.Fatalf("#%d: round trip %#v != %#v", i, got, v)
		}
		// The reference codec reads what we write ...
		var ref any
		if err := abi.MsgPack.Unmarshal(enc, &ref); err != nil {
			t.Fatalf("#%d: reference decode: %v", i, err)
		}
		if !reflect.DeepEqual(ref, v) {
			t.Fatalf("#%d: reference read %#v, want %#v", i, ref, v)
		}
		// ... and we read what it writes.
		refEnc, err := abi.MsgPack.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got2, err := wire.DecodeValue(refEnc)
		if err != nil || !reflect.DeepEqual(got2, v) {
			t.Fatalf("#%d: decode of reference bytes %x: %#v, %v", i, refEnc, got2, err)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "unexpected end"},
		{"truncated str", []byte{0xa5, 'a'}, "unexpected end"},
		{"bin refused", []byte{0xc4, 1, 0}, "raw bytes"},
		{"ext", []byte{0xd4, 1, 0}, "extension"},
		{"reserved", []byte{0xc1}, "0xc1"},
		{"int key", []byte{0x81, 0x01, 0x02}, "not a string"},
		{"huge array", []byte{0xdd, 0xff, 0xff, 0xff, 0xff}, "longer than"},
		{"huge map", []byte{0xdf, 0xff, 0xff, 0xff, 0xff}, "longer than"},
		{"trailing", []byte{0xc0, 0xc0}, "trailing"},
		{"nan", []byte{0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 1}, "not a JSON number"},
		{"deep", bytes.Repeat([]byte{0x91}, 600), "deeper"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := wire.DecodeValue(c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want error containing %q", err, c.want)
			}
		})
	}
}

func TestBin(t *testing.T) {
	for _, n := range []int{0, 10, 300, 70000} {
		p := bytes.Repeat([]byte{7}, n)
		enc := wire.AppendBytes(nil, p)
		v, err := wire.Decoder{AllowBin: true}.Decode(enc)
		if err != nil || !bytes.Equal(v.([]byte), p) {
			t.Fatalf("n=%d: %v %v", n, v, err)
		}
	}
}

func TestAppendValueUnsupported(t *testing.T) {
	_, err := wire.AppendValue(nil, map[string]any{"x": struct{}{}})
	if !errors.Is(err, wire.ErrUnsupported) || !strings.Contains(err.Error(), "x") {
		t.Fatalf("got %v", err)
	}
}

func TestResult(t *testing.T) {
	b, err := wire.AppendResult(nil, map[string]any{"sum": int64(3)})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := wire.DecodeValue(b)
	val, terr, err := wire.ParseResult(v)
	if err != nil || terr != nil || val.(map[string]any)["sum"] != int64(3) {
		t.Fatalf("%v %v %v", val, terr, err)
	}
	var r abi.ToolResult
	b = wire.AppendError(nil, "ProviderError", "boom", map[string]any{"k": "v"})
	if err := abi.MsgPack.Unmarshal(b, &r); err != nil || r.Error.Code != abi.ProviderError || r.Error.Message != "boom" {
		t.Fatalf("%+v %v", r, err)
	}
	v, _ = wire.DecodeValue(b)
	_, terr, _ = wire.ParseResult(v)
	if terr == nil || terr.Code != "ProviderError" {
		t.Fatalf("%v", terr)
	}
	for _, bad := range []any{"x", map[string]any{"error": "x"}, map[string]any{"error": map[string]any{}}} {
		if _, _, err := wire.ParseResult(bad); err == nil {
			t.Fatalf("%v: no error", bad)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, v := range sampleValues() {
		b, _ := wire.AppendValue(nil, v)
		f.Add(b)
	}
	f.Add([]byte{0xdf, 0, 0, 0, 1, 0xa1, 'a', 0xc4, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := wire.DecodeValue(data)
		if err != nil {
			return
		}
		enc, err := wire.AppendValue(nil, v)
		if err != nil {
			t.Fatalf("re-encode of %#v: %v", v, err)
		}
		v2, err := wire.DecodeValue(enc)
		if err != nil || !reflect.DeepEqual(v, v2) {
			t.Fatalf("second round trip: %#v vs %#v (%v)", v, v2, err)
		}
		var ref any
		if abi.MsgPack.Unmarshal(data, &ref) == nil && !reflect.DeepEqual(ref, v) {
			t.Fatalf("differs from reference: %#v vs %#v", v, ref)
		}
	})
}

func BenchmarkDecodeCall(b *testing.B) {
	enc, _ := wire.AppendValue(nil, map[string]any{"id": "c1", "tool": "echo", "params": map[string]any{"msg": "hello", "n": int64(42)}})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := wire.DecodeValue(enc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendCall(b *testing.B) {
	v := map[string]any{"id": "c1", "tool": "echo", "params": map[string]any{"msg": "hello", "n": int64(42)}}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = wire.AppendValue(buf[:0], v); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMapIterAndSkip(t *testing.T) {
	v := map[string]any{"id": "c1", "tool": "echo", "params": map[string]any{"value": []any{int64(1), "x"}, "bin": []byte{1, 2}}}
	enc, _ := wire.AppendValue(nil, v)
	raw, ok, err := wire.MapField(enc, "params")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	val, ok, err := wire.MapField(raw, "value")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	got, err := wire.DecodeValue(val)
	if err != nil || !reflect.DeepEqual(got, []any{int64(1), "x"}) {
		t.Fatalf("%v %v", got, err)
	}
	if _, ok, _ := wire.MapField(enc, "nope"); ok {
		t.Fatal("found a missing key")
	}
	if _, _, err := wire.MapField([]byte{0x91, 0xc0}, "x"); err == nil {
		t.Fatal("an array is not a map")
	}
	if _, _, err := wire.MapField([]byte{0x81, 0x01, 0xc0}, "x"); err == nil {
		t.Fatal("int key accepted")
	}
	if n, err := wire.Skip(enc); err != nil || n != len(enc) {
		t.Fatalf("%d %v", n, err)
	}
	if s, err := wire.ReadString([]byte{0xa2, 'h', 'i'}); err != nil || s != "hi" {
		t.Fatal(s, err)
	}
}

func FuzzSkip(f *testing.F) {
	for _, v := range sampleValues() {
		b, _ := wire.AppendValue(nil, v)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Skip checks structure only (not key types, NaN or depth of
		// keys), so whatever decodes must skip to the same length.
		_, n, err := wire.Decoder{AllowBin: true}.DecodeNext(data)
		m, serr := wire.Skip(data)
		if err == nil && (serr != nil || n != m) {
			t.Fatalf("decode %d %v vs skip %d %v", n, err, m, serr)
		}
		var it wire.MapIter
		if it.Reset(data) == nil {
			for it.Next() {
			}
		}
		// Walk skips as SkipMessage does, and tells of at least one value
		// for each value it skips over.
		visits := 0
		w, werr := wire.Walk(data, func(byte, int) bool { visits++; return true })
		sm, smerr := wire.SkipMessage(data, wire.MaxDepth)
		if (werr == nil) != (smerr == nil) || werr == nil && (w != sm || visits == 0) {
			t.Fatalf("walk %d %v (%d visits) vs skip %d %v", w, werr, visits, sm, smerr)
		}
		// A visitor that stops at once stops the walk.
		if _, err := wire.Walk(data, func(byte, int) bool { return false }); smerr == nil && !errors.Is(err, wire.ErrStopped) {
			t.Fatalf("stopped walk: %v", err)
		}
	})
}

func TestDecodeResultValue(t *testing.T) {
	val, _ := wire.AppendResult(nil, map[string]any{"value": "hello", "n": int64(2)})
	nilErr := wire.AppendString(wire.AppendString(wire.AppendMapHeader(nil, 2), "value"), "v")
	nilErr = wire.AppendNil(wire.AppendString(nilErr, "error"))
	for _, tc := range []struct {
		name string
		in   []byte
		ok   bool
		want any
	}{
		{"value", val, true, map[string]any{"value": "hello", "n": int64(2)}},
		{"empty map", wire.AppendMapHeader(nil, 0), true, nil},
		{"nil error beside value", nilErr, true, "v"},
		{"error", wire.AppendError(nil, "ProviderError", "boom", nil), false, nil},
		{"trailing bytes", append(append([]byte{}, val...), 0xc0), false, nil},
		{"truncated", val[:len(val)-1], false, nil},
		{"not a map", wire.AppendString(nil, "x"), false, nil},
		{"empty", nil, false, nil},
		{"bin value", wire.AppendBytes(wire.AppendString(wire.AppendMapHeader(nil, 1), "value"), []byte{1}), false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, ok := wire.DecodeResultValue(tc.in)
			if ok != tc.ok || !reflect.DeepEqual(v, tc.want) {
				t.Fatalf("DecodeResultValue = %#v, %v; want %#v, %v", v, ok, tc.want, tc.ok)
			}
		})
	}
}

// FuzzDecodeResultValue: whenever the fast path accepts a message, the full
// decode agrees with it.
func FuzzDecodeResultValue(f *testing.F) {
	val, _ := wire.AppendResult(nil, map[string]any{"value": "hello"})
	f.Add(val)
	f.Add(wire.AppendError(nil, "ProviderError", "boom", nil))
	f.Add([]byte{0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		v, ok := wire.DecodeResultValue(data)
		if !ok {
			return
		}
		raw, err := wire.DecodeValue(data)
		if err != nil {
			// The fast path ignores envelope keys other than value and
			// error; the full decode may refuse their contents.
			return
		}
		want, terr, err := wire.ParseResult(raw)
		if err != nil || terr != nil || !reflect.DeepEqual(v, want) {
			t.Fatalf("fast %#v; full %#v, %v, %v", v, want, terr, err)
		}
	})
}
