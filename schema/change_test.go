package schema

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

func jsonDoc(t testing.TB, s string) any {
	t.Helper()
	if s == "" {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test schema %s: %v", s, err)
	}
	return v
}

// TestDiffKinds checks each change kind, and whether it breaks callers
// for a parameters schema and for a returns schema.
func TestDiffKinds(t *testing.T) {
	obj := func(props string, extra string) string {
		s := `{"type":"object","properties":{` + props + `}`
		if extra != "" {
			s += "," + extra
		}
		return s + "}"
	}
	cases := []struct {
		name          string
		old, new      string
		path          string
		kind          ChangeKind
		params, retns bool // breaking for a parameters / a returns schema
	}{
		{"optional property added", obj(`"a":{"type":"string"}`, ""), obj(`"a":{"type":"string"},"b":{"type":"integer"}`, ""),
			"/properties/b", PropertyAdded, false, false},
		{"property removed, extra allowed", obj(`"a":{},"b":{}`, ""), obj(`"a":{}`, ""),
			"/properties/b", PropertyRemoved, false, true},
		{"property removed, extra refused", obj(`"a":{},"b":{}`, `"additionalProperties":false`), obj(`"a":{}`, `"additionalProperties":false`),
			"/properties/b", PropertyRemoved, true, true},
		{"property removed, extra checked", obj(`"a":{},"b":{}`, `"additionalProperties":{"type":"string"}`), obj(`"a":{}`, `"additionalProperties":{"type":"string"}`),
			"/properties/b", PropertyRemoved, true, true},
		{"required added", obj(`"a":{}`, ""), obj(`"a":{}`, `"required":["a"]`),
			"/properties/a", RequiredAdded, true, false},
		{"required removed", obj(`"a":{}`, `"required":["a"]`), obj(`"a":{}`, ""),
			"/properties/a", RequiredRemoved, false, true},
		{"type narrowed", `{"type":["string","null"]}`, `{"type":"string"}`, "/type", TypeNarrowed, true, false},
		{"type narrowed number to integer", `{"type":"number"}`, `{"type":"integer"}`, "/type", TypeNarrowed, true, false},
		{"type widened", `{"type":"integer"}`, `{"type":"number"}`, "/type", TypeWidened, false, true},
		{"type introduced", `{}`, `{"type":"string","x":1}`, "/type", TypeNarrowed, true, false},
		{"type changed", `{"type":"string"}`, `{"type":"integer"}`, "/type", TypeChanged, true, true},
		{"type malformed", `{"type":"string"}`, `{"type":"text"}`, "/type", Unknown, true, true},
		{"enum values removed", `{"enum":["a","b"]}`, `{"enum":["a"]}`, "/enum", EnumValuesRemov, true, false},
		{"enum values added", `{"enum":["a"]}`, `{"enum":["a","b"]}`, "/enum", EnumValuesAdded, false, true},
		{"enum added", `{"type":"string"}`, `{"type":"string","enum":["a"]}`, "/enum", EnumAdded, true, false},
		{"enum removed", `{"type":"string","enum":["a"]}`, `{"type":"string"}`, "/enum", EnumRemoved, false, true},
		{"const added", `{"type":"string"}`, `{"type":"string","const":"a"}`, "/const", ConstAdded, true, false},
		{"const removed", `{"const":"a"}`, `{"type":"string"}`, "/const", ConstRemoved, false, true},
		{"const changed", `{"const":"a"}`, `{"const":"b"}`, "/const", ConstChanged, true, true},
		{"const null added", `{}`, `{"const":null}`, "/const", ConstAdded, true, false},
		{"additionalProperties tightened", obj("", ""), obj("", `"additionalProperties":false`),
			"/additionalProperties", AdditionalPropertiesTightened, true, false},
		{"additionalProperties schema", obj("", ""), obj("", `"additionalProperties":{"type":"string"}`),
			"/additionalProperties/type", TypeNarrowed, true, false},
		{"additionalProperties schema to false", obj("", `"additionalProperties":{"type":"string"}`), obj("", `"additionalProperties":false`),
			"/additionalProperties", AdditionalPropertiesTightened, true, false},
		{"additionalProperties loosened", obj("", `"additionalProperties":false`), obj("", ""),
			"/additionalProperties", AdditionalPropertiesLoosened, false, true},
		{"additionalProperties inner", obj("", `"additionalProperties":{"type":"integer"}`), obj("", `"additionalProperties":{"type":"number"}`),
			"/additionalProperties/type", TypeWidened, false, true},
		{"minimum raised", `{"minimum":0}`, `{"minimum":1}`, "/minimum", BoundTightened, true, false},
		{"minimum lowered", `{"minimum":1}`, `{"minimum":0.5}`, "/minimum", BoundLoosened, false, true},
		{"maximum lowered", `{"maximum":10}`, `{"maximum":9}`, "/maximum", BoundTightened, true, false},
		{"maximum removed", `{"maximum":10}`, `{}`, "/maximum", BoundLoosened, false, true},
		{"exclusiveMaximum added", `{}`, `{"exclusiveMaximum":10}`, "/exclusiveMaximum", BoundTightened, true, false},
		{"maxLength raised", `{"maxLength":10}`, `{"maxLength":20}`, "/maxLength", BoundLoosened, false, true},
		{"minLength raised", `{"minLength":1}`, `{"minLength":2}`, "/minLength", BoundTightened, true, false},
		{"minItems added", `{"type":"array"}`, `{"type":"array","minItems":1}`, "/minItems", BoundTightened, true, false},
		{"maxItems lowered", `{"maxItems":5}`, `{"maxItems":4}`, "/maxItems", BoundTightened, true, false},
		{"maxProperties raised", `{"maxProperties":5}`, `{"maxProperties":6}`, "/maxProperties", BoundLoosened, false, true},
		{"draft-04 exclusiveMinimum", `{"minimum":1,"exclusiveMinimum":false}`, `{"minimum":1,"exclusiveMinimum":true}`,
			"/exclusiveMinimum", Unknown, true, true},
		{"multipleOf tightened", `{"multipleOf":2}`, `{"multipleOf":4}`, "/multipleOf", BoundTightened, true, false},
		{"multipleOf loosened", `{"multipleOf":0.5}`, `{"multipleOf":0.25}`, "/multipleOf", BoundLoosened, false, true},
		{"multipleOf changed", `{"multipleOf":2}`, `{"multipleOf":3}`, "/multipleOf", BoundChanged, true, true},
		{"uniqueItems added", `{"type":"array"}`, `{"type":"array","uniqueItems":true}`, "/uniqueItems", BoundTightened, true, false},
		{"uniqueItems dropped", `{"uniqueItems":true}`, `{"uniqueItems":false}`, "/uniqueItems", BoundLoosened, false, true},
		{"pattern added", `{"type":"string"}`, `{"type":"string","pattern":"^a"}`, "/pattern", PatternAdded, true, false},
		{"pattern removed", `{"pattern":"^a"}`, `{}`, "/pattern", PatternRemoved, false, true},
		{"pattern changed", `{"pattern":"^a"}`, `{"pattern":"^b"}`, "/pattern", PatternChanged, true, true},
		{"format changed", `{"format":"date"}`, `{"format":"date-time"}`, "/format", PatternChanged, true, true},
		{"items type narrowed", `{"type":"array","items":{"type":["string","integer"]}}`, `{"type":"array","items":{"type":"string"}}`,
			"/items/type", TypeNarrowed, true, false},
		{"items tightened to false", `{"type":"array","items":true}`, `{"type":"array","items":false}`,
			"/items", SchemaTightened, true, false},
		{"items constrained", `{"type":"array"}`, `{"type":"array","items":{"type":"string"}}`,
			"/items/type", TypeNarrowed, true, false},
		{"items unconstrained", `{"type":"array","items":{"type":"string"}}`, `{"type":"array"}`,
			"/items/type", TypeWidened, false, true},
		{"items accept nothing", `{"type":"array","items":{"type":"string"}}`, `{"type":"array","items":false}`,
			"/items", SchemaTightened, true, false},
		{"items accept something", `{"type":"array","items":false}`, `{"type":"array","items":{"type":"string"}}`,
			"/items", SchemaLoosened, false, true},
		{"items tuple", `{"items":[{"type":"string"}]}`, `{"items":[{"type":"integer"}]}`, "/items", ItemsChanged, true, true},
		{"nested property", obj(`"o":`+obj(`"x":{"type":"integer","maximum":5}`, ""), ""), obj(`"o":`+obj(`"x":{"type":"integer","maximum":3}`, ""), ""),
			"/properties/o/properties/x/maximum", BoundTightened, true, false},
		{"property forbidden", obj(`"a":{}`, ""), obj(`"a":false`, ""), "/properties/a", SchemaTightened, true, false},
		{"property name escaped", obj(`"a/b~c":{"type":"string"}`, ""), obj(`"a/b~c":{"type":"integer"}`, ""),
			"/properties/a~1b~0c/type", TypeChanged, true, true},
		{"whole schema false", `{"type":"object"}`, `false`, "", SchemaTightened, true, false},
		{"absent to schema", ``, `{"type":"object"}`, "/type", TypeNarrowed, true, false},
		{"schema to absent", `{"type":"object"}`, ``, "/type", TypeWidened, false, true},
		{"false to absent", `false`, ``, "", SchemaLoosened, false, true},
		{"ref changed", `{"$ref":"#/$defs/a","$defs":{"a":{}}}`, `{"$ref":"#/$defs/b","$defs":{"a":{}}}`, "/$ref", Unknown, true, true},
		{"defs changed", `{"$ref":"#/$defs/a","$defs":{"a":{}}}`, `{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}`, "/$defs", Unknown, true, true},
		{"oneOf changed", `{"oneOf":[{"type":"string"}]}`, `{"oneOf":[{"type":"string"},{"type":"null"}]}`, "/oneOf", Unknown, true, true},
		{"anyOf added", `{}`, `{"anyOf":[{"type":"string"}]}`, "/anyOf", Unknown, true, true},
		{"allOf removed", `{"allOf":[{"type":"string"}]}`, `{"x":0}`, "/allOf", Unknown, true, true},
		{"if changed", `{"if":{"type":"string"},"then":{"minLength":1}}`, `{"if":{"type":"string"},"then":{"minLength":2}}`, "/then", Unknown, true, true},
		{"not added", `{}`, `{"not":{"type":"null"}}`, "/not", Unknown, true, true},
		{"patternProperties", `{"patternProperties":{"^a":{}}}`, `{"patternProperties":{"^b":{}}}`, "/patternProperties", Unknown, true, true},
		{"properties malformed", `{"properties":[]}`, `{"properties":{}}`, "/properties", Unknown, true, true},
		{"required malformed", `{"required":["a"]}`, `{"required":"a"}`, "/required", Unknown, true, true},
		{"schema is a number", `{"properties":{"a":1}}`, `{"properties":{"a":2}}`, "/properties/a", Unknown, true, true},
	}
	for _, c := range cases {
		for _, dir := range []Direction{Params, Returns} {
			want := c.params
			if dir == Returns {
				want = c.retns
			}
			changes := Diff(jsonDoc(t, c.old), jsonDoc(t, c.new), dir)
			var found *Change
			for i := range changes {
				if changes[i].Path == c.path && changes[i].Kind == c.kind {
					found = &changes[i]
				}
			}
			if found == nil {
				t.Errorf("%s (%s): no %s change at %q; got %v", c.name, dir, c.kind, c.path, changes)
				continue
			}
			if found.Breaking != want {
				t.Errorf("%s (%s): %v: breaking = %v, want %v", c.name, dir, found, found.Breaking, want)
			}
			if Breaking(changes) != slicesAnyBreaking(changes) {
				t.Errorf("%s: Breaking disagrees", c.name)
			}
		}
	}
}

func slicesAnyBreaking(cs []Change) bool {
	for _, c := range cs {
		if c.Breaking {
			return true
		}
	}
	return false
}

// TestDiffNoChange: equal schemas, annotations and spellings that mean the
// same thing are no change.
func TestDiffNoChange(t *testing.T) {
	pairs := [][2]string{
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, `{"required":["a"],"properties":{"a":{"type":"string"}},"type":"object"}`},
		{`{"type":"string","description":"old words","title":"t"}`, `{"type":"string","description":"new words","examples":["x"],"default":"y"}`},
		{`{"minimum":1}`, `{"minimum":1.0}`},
		{`{"enum":[1,"a"]}`, `{"enum":["a",1.0]}`},
		{`{"type":"number"}`, `{"type":["number","integer"]}`},
		{`{"required":["a","b"]}`, `{"required":["b","a"]}`},
		{``, `{}`},
		{``, `true`},
		{`{"x-vendor":1}`, `{"x-vendor":2}`},
		{`{"additionalProperties":true}`, `{}`},
		{`{"$ref":"#/$defs/a","$defs":{"a":{}}}`, `{"$ref":"#/$defs/a","$defs":{"a":{}}}`},
		// A count's lower bound of 0 is what its absence means: adding
		// or dropping one is no change (it was reported as a breaking
		// bound-tightened).
		{`{"type":"array"}`, `{"type":"array","minItems":0}`},
		{`{"type":"string","minLength":0}`, `{"type":"string"}`},
		{`{"type":"object"}`, `{"type":"object","minProperties":0.0}`},
	}
	for _, p := range pairs {
		if got := Diff(jsonDoc(t, p[0]), jsonDoc(t, p[1]), Params); len(got) != 0 {
			t.Errorf("%s → %s: want no change, got %v", p[0], p[1], got)
		}
	}
	// From an absent count bound to 1 and back still is a change; a
	// minimum of 0 is not what an absent minimum means.
	for _, p := range [][3]string{
		{`{"type":"array"}`, `{"type":"array","minItems":1}`, string(BoundTightened)},
		{`{"type":"array","minItems":1}`, `{"type":"array"}`, string(BoundLoosened)},
		{`{"type":"array","minItems":0}`, `{"type":"array","minItems":2}`, string(BoundTightened)},
		{`{"type":"number"}`, `{"type":"number","minimum":0}`, string(BoundTightened)},
	} {
		got := Diff(jsonDoc(t, p[0]), jsonDoc(t, p[1]), Params)
		if len(got) != 1 || string(got[0].Kind) != p[2] {
			t.Errorf("%s → %s: want one %s, got %v", p[0], p[1], p[2], got)
		}
	}
}

// TestDiffGoValues: schemas written as Go values (native providers)
// compare like their JSON.
func TestDiffGoValues(t *testing.T) {
	old := map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "maximum": 10}},
		"required": []string{"n"}}
	same := jsonDoc(t, `{"type":"object","properties":{"n":{"type":"integer","maximum":10.0}},"required":["n"]}`)
	if got := Diff(old, same, Params); len(got) != 0 {
		t.Fatalf("Go values vs JSON: %v", got)
	}
	var nilMap map[string]any
	if got := Diff(nilMap, nil, Params); len(got) != 0 {
		t.Fatalf("nil map vs absent: %v", got)
	}
	got := Diff(old, map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "maximum": 5}},
		"required": []string{"n", "m"}}, Params)
	if len(got) != 2 || !Breaking(got) {
		t.Fatalf("want maximum tightened and m required: %v", got)
	}
	if s := got[0].String(); !strings.Contains(s, "[breaking]") {
		t.Errorf("String: %q", s)
	}
}

// TestDiffSorted: changes come sorted by path, and several at once.
func TestDiffSorted(t *testing.T) {
	got := Diff(jsonDoc(t, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}`),
		jsonDoc(t, `{"type":"object","properties":{"b":{"type":"number"},"c":{}},"required":["b"]}`), Params)
	var paths []string
	for _, c := range got {
		paths = append(paths, c.Path+" "+string(c.Kind))
	}
	want := []string{"/properties/a property-removed", "/properties/a required-removed", "/properties/b required-added",
		"/properties/b/type type-widened", "/properties/c property-added"}
	if strings.Join(paths, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(paths, "\n"), strings.Join(want, "\n"))
	}
}

// TestDiffOddInput: values that are not schemas, huge exponents, NaN:
// no panic, and a difference is Unknown.
func TestDiffOddInput(t *testing.T) {
	inputs := []any{nil, true, false, 1.5, "str", []any{1, 2}, map[string]any{"minimum": json.Number("1e999999999")},
		map[string]any{"minimum": json.Number("1e-999999999")}, map[string]any{"maximum": "ten"},
		map[string]any{"multipleOf": 0.0}, map[string]any{"multipleOf": -1.0}, map[string]any{"enum": "x"},
		map[string]any{"type": []any{1}}, map[string]any{"items": map[string]any{"items": []any{}}},
		map[string]any{"properties": map[string]any{"a": map[string]any{"minimum": func() {}}}}}
	for _, a := range inputs {
		for _, b := range inputs {
			for _, d := range []Direction{Params, Returns} {
				_ = Diff(a, b, d)
			}
		}
	}
	if got := Diff("str", 1.5, Params); len(got) != 1 || got[0].Kind != Unknown || !got[0].Breaking {
		t.Fatalf("non-schemas: %v", got)
	}
}

// FuzzDiff: Diff never panics on any pair of JSON documents, is empty for
// a document against itself, and lists its changes sorted by path.
func FuzzDiff(f *testing.F) {
	seeds := []string{
		`{"type":"object","properties":{"a":{"type":"string","maxLength":3}},"required":["a"],"additionalProperties":false}`,
		`{"type":["integer","null"],"minimum":1e308,"multipleOf":0.1,"enum":[1,2,{"a":[null]}]}`,
		`{"items":{"items":{"const":1}},"uniqueItems":true,"$ref":"#","oneOf":[true,false]}`,
		`true`, `false`, `null`, `1`, `"x"`, `[]`, `{"properties":{"x":[1]},"required":[1],"type":7}`,
		`{"minimum":1e999,"maximum":-1e999,"exclusiveMinimum":true}`,
	}
	for _, a := range seeds {
		for _, b := range seeds {
			f.Add([]byte(a), []byte(b))
		}
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var x, y any
		if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
			return
		}
		for _, d := range []Direction{Params, Returns} {
			if got := Diff(x, x, d); len(got) != 0 {
				t.Fatalf("Diff(x, x) of %s: %v", a, got)
			}
			got := Diff(x, y, d)
			for i := 1; i < len(got); i++ {
				if got[i-1].Path > got[i].Path {
					t.Fatalf("not sorted: %v", got)
				}
			}
			for _, c := range got {
				_ = c.String()
				if c.Path != "" && !strings.HasPrefix(c.Path, "/") {
					t.Fatalf("Diff(%s, %s): path %q is not a JSON pointer", a, b, c.Path)
				}
				if c.Kind == Unknown && !c.Breaking {
					t.Fatalf("Diff(%s, %s): an Unknown change not breaking: %v", a, b, c)
				}
			}
			// Annotations are ignored: a title and description added
			// to (or changed in) the schema change nothing.
			if m, ok := x.(map[string]any); ok {
				annotated := maps.Clone(m)
				annotated["title"], annotated["description"] = "fuzz", "a fuzzed schema"
				if got := Diff(x, annotated, d); len(got) != 0 {
					t.Fatalf("Diff of %s and it with a title and description: %v", a, got)
				}
			}
		}
	})
}
