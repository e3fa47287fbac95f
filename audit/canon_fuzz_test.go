package audit

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// FuzzCanonicalJSON: the encoding the log hashes (params_hash,
// result_hash) is JSON, means the value it encodes, and is one text per
// value: the value read back from it encodes to the same bytes, whatever
// order or spelling (2.0 for 2, escapes) the input had.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{"b":[1,2.0,"x",null,true],"a":{"é":-0.0}}`, `1e400`, `18446744073709551615`, `-9223372036854775809`,
		`"\u0001\u007f\u2028"`, `[1e-7, 0.1, 1e21, 123456789012345678901234567890]`, `{"a\u0000":"\ud800"}`, `9007199254740993.0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if abi.UnmarshalJSONValue(data, &v) != nil {
			return
		}
		out, err := CanonicalJSON(v)
		if err != nil {
			t.Fatalf("%q (%#v) does not encode: %v", data, v, err)
		}
		if !json.Valid(out) {
			t.Fatalf("%q encodes as %q, not JSON", data, out)
		}
		var back any
		if err := abi.UnmarshalJSONValue(out, &back); err != nil {
			t.Fatalf("%q encodes as %q, which does not decode: %v", data, out, err)
		}
		again, err := CanonicalJSON(back)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("%q encodes as %q, read back as %#v, which encodes as %q (%v)", data, out, back, again, err)
		}
		// The indented input, or the host's own JSON of the value, is the
		// same value: the same text.
		var ind bytes.Buffer
		if json.Indent(&ind, data, "", "  ") == nil {
			var w any
			if err := abi.UnmarshalJSONValue(ind.Bytes(), &w); err != nil {
				t.Fatalf("indented %q does not decode: %v", data, err)
			}
			if o2, err := CanonicalJSON(w); err != nil || !bytes.Equal(o2, out) {
				t.Fatalf("%q encodes as %q, indented as %q (%v)", data, out, o2, err)
			}
		}
		if j, err := abi.JSON.Marshal(abi.ForJSON(v)); err == nil {
			var w any
			if abi.UnmarshalJSONValue(j, &w) == nil {
				if o2, err := CanonicalJSON(w); err != nil || !bytes.Equal(o2, out) {
					t.Fatalf("%q encodes as %q, the host's JSON of it %q as %q (%v)", data, out, j, o2, err)
				}
			}
		}
	})
}
