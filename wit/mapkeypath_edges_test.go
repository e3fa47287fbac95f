package wit

import (
	"math"
	"strings"
	"testing"
)

// TestMapKeyPathQuoted: an error inside a map<string, V> value named the
// entry by its key as it is, "$.m." + key, so a key holding '.', '[' or a
// line break made the path read as other fields ("$.m.a.b[0]") or split the
// message over lines a caller could take for its own. A key that is not a
// plain word is quoted, as configuration key paths are: $.m["a.b[0]\nx"].
func TestMapKeyPathQuoted(t *testing.T) {
	m := &Type{Kind: KindMap, Key: Primitive(KindString), Elem: &Type{Kind: KindList, Elem: Primitive(KindU8)}}
	cases := []struct{ key, path string }{
		{"plain-key_1", `$.m.plain-key_1:`},
		{"a.b[0]\nFAKE", `$.m["a.b[0]\nFAKE"]:`},
		{"", `$.m[""]:`},
		{"with space", `$.m["with space"]:`},
	}
	for _, c := range cases {
		_, err := FromJSON(m, map[string]any{c.key: "!!"}, "$.m")
		if err == nil {
			t.Fatalf("key %q: \"!!\" accepted as bytes", c.key)
		}
		if !strings.HasPrefix(err.Error(), c.path+" ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("key %q: error %q, want it to start with %s on one line", c.key, err, c.path)
		}
	}
	f := &Type{Kind: KindMap, Key: Primitive(KindString), Elem: Primitive(KindF64)}
	_, err := ToJSON(f, []Value{Tuple{"x.y\nz", math.NaN()}})
	if err == nil || !strings.HasPrefix(err.Error(), `$["x.y\nz"]: `) {
		t.Errorf("ToJSON of NaN under key \"x.y\\nz\": %v", err)
	}
}
