package audit

import (
	"encoding/json"
	"testing"
)

// A Go tool's map whose keys are not valid UTF-8 hashes as the object its
// client receives (encoding/json writes each such byte as U+FFFD, and the
// later of two keys that become one wins): keys sorted as written, none
// repeated. Sorted by the Go keys, "a\x80" (written "a\uFFFD") came before
// "a\u0100", out of byte order, and the hash was another value's.
func TestCanonicalJSONInvalidUTF8KeysHashAsSent(t *testing.T) {
	for _, m := range []map[string]any{
		{"a\x80": 1, "a\u0100": 2},
		{"a\x80": 1, "a\xff": 2, "b": 3},
		{"a\xff": 1, "a\x80": 2, "a\ufffd": 3, "\x00": []any{map[string]any{"k\xc3": true, "k": false}}},
	} {
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var sent any
		if err := json.Unmarshal(raw, &sent); err != nil {
			t.Fatal(err)
		}
		got, err := CanonicalJSON(m)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := CanonicalJSON(sent)
		if string(got) != string(want) {
			t.Errorf("CanonicalJSON(%q) = %s, want %s (the value as its client receives it, %s)", m, got, want, raw)
		}
		if h, _ := ValueHash(m); h != mustHash(t, sent) {
			t.Errorf("ValueHash(%q) = %s, not the hash of the value sent", m, h)
		}
	}
}
