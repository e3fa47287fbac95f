package abi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"testing"
)

// FuzzJSONValue: what UnmarshalJSONValue accepts is JSON, decodes to a
// canonical value, and that value goes through either codec and back as
// itself (the codecs carry the same meaning).
func FuzzJSONValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x",null,true]}`, `-0.0`, `1e400`, `18446744073709551615`, `-9223372036854775809`,
		`"\ud800"`, `{"a":1,"a":2}`, `[1e-400, 0.1, 1.0, -0]`, `"é\u0000"`, `{"":{"":[]}}`, `9007199254740993.0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if err := UnmarshalJSONValue(data, &v); err != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("%q is not JSON but decoded as %#v", data, v)
		}
		if !IsCanonical(v) {
			t.Fatalf("%q decoded as %#v, not canonical", data, v)
		}
		for _, c := range []Codec{JSON, MsgPack} {
			in := v
			if c == JSON {
				in = ForJSON(v) // as the host writes JSON
			}
			b, err := c.Marshal(in)
			if err != nil {
				t.Fatalf("%q: %#v does not encode with %s: %v", data, v, c.Name(), err)
			}
			var back any
			if err := c.Unmarshal(b, &back); err != nil {
				t.Fatalf("%q: %#v encoded with %s as %q does not decode: %v", data, v, c.Name(), b, err)
			}
			if !sameValue(back, v) {
				t.Fatalf("%q through %s: got %#v, want %#v", data, c.Name(), back, v)
			}
		}
	})
}

// sameValue: a and b are the same JSON value, numbers compared by value
// (a whole float may come back an integer, -0 as 0: JSON does not tell
// them apart).
func sameValue(a, b any) bool {
	num := func(x any) (*big.Float, bool) {
		switch n := x.(type) {
		case int64:
			return new(big.Float).SetInt64(n), true
		case uint64:
			return new(big.Float).SetUint64(n), true
		case float64:
			return new(big.Float).SetFloat64(n), true
		}
		return nil, false
	}
	if x, ok := num(a); ok {
		y, ok := num(b)
		return ok && x.Cmp(y) == 0
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, e := range x {
			f, ok := y[k]
			if !ok || !sameValue(e, f) {
				return false
			}
		}
		return true
	}
	return a == b
}

// FuzzFrames: ReadFrame splits a stream into the frames WriteFrame wrote,
// and ends it as documented: io.EOF only at a clean end, ErrUnexpectedEOF
// for a truncated frame, FrameTooLargeError (nothing past the header read)
// for one over the limit.
func FuzzFrames(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 'x', 0, 0, 0, 0}, uint16(16))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, uint16(0))
	f.Add([]byte{0, 0}, uint16(1))
	f.Add([]byte{0, 0, 0, 3, 'a', 'b'}, uint16(3))
	f.Fuzz(func(t *testing.T, b []byte, max uint16) {
		limit := int(max)
		if limit == 0 {
			limit = 1 << 16
		}
		r := bytes.NewReader(b)
		var again bytes.Buffer
		for {
			before := r.Len()
			p, err := ReadFrame(r, limit)
			if err != nil {
				var tl *FrameTooLargeError
				switch {
				case err == io.EOF:
					if before != 0 {
						t.Fatalf("io.EOF with %d bytes left", before)
					}
				case errors.Is(err, io.ErrUnexpectedEOF):
					if before == 0 {
						t.Fatal("ErrUnexpectedEOF at a clean end")
					}
				case errors.As(err, &tl):
					if int(tl.Size) <= limit || before-r.Len() != 4 || tl.Max != limit {
						t.Fatalf("%v after reading %d bytes (limit %d)", err, before-r.Len(), limit)
					}
				default:
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(p) > limit {
				t.Fatalf("frame of %d bytes past limit %d", len(p), limit)
			}
			if err := WriteFrame(&again, p); err != nil {
				t.Fatal(err)
			}
			if consumed := len(b) - r.Len(); !bytes.Equal(again.Bytes(), b[:consumed]) {
				t.Fatalf("frames written again %q, read from %q", again.Bytes(), b[:consumed])
			}
		}
	})
}
