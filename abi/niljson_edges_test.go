package abi_test

import (
	"encoding/json"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
)

// TestForJSONWritesNilSliceAsEmpty: a Go tool's result with a nil []any
// or map[string]any (`var out []any` with nothing appended) is an empty
// array or object to the host: it counts it so, a return schema of type
// array takes it, and the audit record's result_hash is that of [] (its
// canonical JSON). The server and the MCP server wrote it with
// encoding/json (through ForJSON), which writes null: the client got null
// where the schema said array, and a result it hashed never matched its
// record. It is written [] and {} now, as the record hashes it.
func TestForJSONWritesNilSliceAsEmpty(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
		// bigFloat: a whole float from 2^53 up, which the client reads
		// back as a float, not as the integer the record hashes.
		bigFloat bool
	}{
		{[]any(nil), `[]`, false},
		{map[string]any(nil), `{}`, false},
		{map[string]any{"items": []any(nil), "n": int64(1)}, `{"items":[],"n":1}`, false},
		{[]any{map[string]any(nil), "x"}, `[{},"x"]`, false},
		{map[string]any{"big": float64(1 << 60), "m": map[string]any(nil)}, `{"big":1.152921504606847e+18,"m":{}}`, true},
	} {
		b, err := json.Marshal(abi.ForJSON(c.v))
		if err != nil {
			t.Fatal(err)
		}
		canon, err := audit.CanonicalJSON(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("%#v is written %s, want %s", c.v, b, c.want)
		}
		if c.bigFloat {
			continue
		}
		// What a client gets is what the record hashes.
		var back any
		if err := abi.UnmarshalJSONValue(b, &back); err != nil {
			t.Fatal(err)
		}
		got, _ := audit.CanonicalJSON(back)
		if string(got) != string(canon) {
			t.Errorf("%#v: the client reads %s, the audit record hashes %s", c.v, got, canon)
		}
	}
	// ForJSON changes nothing of its argument.
	m := map[string]any{"items": []any(nil)}
	_ = abi.ForJSON(m)
	if m["items"].([]any) != nil {
		t.Error("ForJSON changed its argument")
	}
}
