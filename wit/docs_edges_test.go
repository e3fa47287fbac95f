package wit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/schema"
)

// TestEnumFlagDocsInSchema: the doc comments of enum cases and of
// flags reach the JSON Schema as descriptions, as those of record fields
// and variant cases do (docs/wit.md: doc comments become description); the
// schema still accepts exactly the cases, and the flags once each.
func TestEnumFlagDocsInSchema(t *testing.T) {
	res, err := ParseSource("docs.wit", `package probe:docs;
interface t {
  /// Kinds.
  enum shape-kind {
    /// Red things.
    red,
    dark-green,
  }
  /// Permissions.
  flags perms {
    read,
    /// May write everything.
    write-all,
  }
  enum plain { a, b }
}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	iface := res.Root.Interface("t")
	descs := func(s any) map[string]string {
		out := map[string]string{}
		var walk func(any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				if c, ok := x["const"].(string); ok {
					d, _ := x["description"].(string)
					out[c] = d
				}
				for _, e := range x {
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(s)
		return out
	}
	kind := JSONSchema(iface.Type("shape-kind").Type)
	perms := JSONSchema(iface.Type("perms").Type)
	if d := descs(kind); d["red"] != "Red things." || d["dark-green"] != "" {
		b, _ := json.Marshal(kind)
		t.Errorf("enum schema %s: case docs %v, want red's", b, d)
	}
	if d := descs(perms); d["write-all"] != "May write everything." {
		b, _ := json.Marshal(perms)
		t.Errorf("flags schema %s: flag docs %v, want write-all's", b, d)
	}
	if kind["description"] != "Kinds." || perms["description"] != "Permissions." {
		t.Errorf("type docs: %v, %v", kind["description"], perms["description"])
	}
	plain := JSONSchema(iface.Type("plain").Type)
	if b, _ := json.Marshal(plain); string(b) != `{"enum":["a","b"],"type":"string"}` {
		t.Errorf("an enum without case docs: %s", b)
	}
	if err := schema.MustCompile("t", kind).Validate("blue"); err == nil || !strings.Contains(err.Error(), "'red', 'dark-green'") {
		t.Errorf("blue: %v, want the cases named", err)
	}
	for _, c := range []struct {
		s    map[string]any
		v    any
		good bool
	}{
		{kind, "red", true}, {kind, "dark-green", true}, {kind, "blue", false}, {kind, int64(1), false},
		{perms, []any{}, true}, {perms, []any{"write-all", "read"}, true}, {perms, []any{"read", "read"}, false}, {perms, []any{"x"}, false},
	} {
		v := schema.MustCompile("t", c.s)
		if err := v.Validate(c.v); (err == nil) != c.good {
			t.Errorf("%v: %v", c.v, err)
		}
	}
}
