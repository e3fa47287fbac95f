package schema

import (
	"errors"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

func mustJSON(t testing.TB, s string) map[string]any {
	t.Helper()
	var v any
	if err := abi.UnmarshalJSONValue([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("test JSON %s is not an object", s)
	}
	return m
}

func value(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := abi.UnmarshalJSONValue([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name, schema string
		want         []string // substrings of the error
	}{
		{"bad-type", `{"type":"strin"}`, []string{"bad-type", "type"}},
		{"neg-min", `{"type":"string","minLength":-1}`, []string{"neg-min", "minLength"}},
		{"bad-required", `{"required":"a"}`, []string{"bad-required", "required"}},
		{"bad-regex", `{"pattern":"(unclosed"}`, []string{"bad-regex", "(unclosed"}},
		{"external-ref", `{"$ref":"file:///etc/passwd"}`, []string{"external-ref", "refused"}},
		{"missing-ref", `{"$ref":"#/$defs/nope"}`, []string{"missing-ref"}},
		{"bad-props", `{"properties":{"a":3}}`, []string{"bad-props", "properties"}},
		// A misspelled type names the value and the allowed ones, without
		// the metaschema's "got string, want array" from the other branch.
		{"typo-type", `{"properties":{"count":{"type":"integr"}}}`, []string{`at /properties/count/type: "integr" is not allowed; value must be one of 'array', 'boolean', 'integer'`}},
		{"typo-type-list", `{"type":["strin","integer"]}`, []string{`at /type/0: "strin" is not allowed`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.name, mustJSON(t, tc.schema))
			if err == nil {
				t.Fatalf("Compile(%s) succeeded, want an error", tc.schema)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.HasPrefix(tc.name, "typo-") && (strings.Contains(err.Error(), "want array") || strings.Count(err.Error(), "at /") != 1) {
				t.Errorf("error %q: want the one leaf that says what is wrong", err)
			}
		})
	}
}

func TestEmptyAcceptsAnything(t *testing.T) {
	for _, doc := range []map[string]any{nil, {}} {
		v, err := Compile("any", doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, val := range []any{nil, true, int64(1), 2.5, "s", []any{1}, map[string]any{"a": nil}} {
			if err := v.Validate(val); err != nil {
				t.Errorf("Validate(%v) = %v, want nil", val, err)
			}
		}
	}
	var nilV *Validator
	if err := nilV.Validate("x"); err != nil {
		t.Errorf("nil validator refused: %v", err)
	}
}

func TestSchemaReturnsOriginal(t *testing.T) {
	doc := map[string]any{"type": "object", "required": []string{"a"}}
	v, err := Compile("orig", doc)
	if err != nil {
		t.Fatal(err)
	}
	got := v.Schema()
	if _, ok := got["required"].([]string); !ok {
		t.Errorf("Schema() changed the document: %#v", got)
	}
	if err := v.Validate(map[string]any{}); err == nil {
		t.Error("non-canonical required list was not honoured")
	}
}

func TestValidationErrors(t *testing.T) {
	tests := []struct {
		schema, value string
		path          string
		msg           string
	}{
		{`{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"a":"x"}`, "/a", "expected integer, got string"},
		{`{"type":"object","required":["msg"]}`, `{}`, "", `missing required property "msg"`},
		{`{"type":"object","properties":{"a":{}},"additionalProperties":false}`, `{"a":1,"b":2}`, "", `additional property "b" not allowed`},
		{`{"type":"array","items":{"type":"string"}}`, `["a",1]`, "/1", "expected string, got integer"},
		{`{"type":"object","properties":{"a/b":{"properties":{"c~d":{"type":"null"}}}}}`, `{"a/b":{"c~d":1}}`, "/a~1b/c~0d", "expected null"},
		{`{"type":"integer","minimum":0}`, `-1`, "", "must be >= 0"},
		{`{"type":"string","maxLength":2}`, `"héé"`, "", "length must be at most 2, got 3"},
		{`{"type":"string","pattern":"^[a-z]+$"}`, `"abc1"`, "", "does not match pattern"},
		{`{"enum":["a","b"]}`, `"c"`, "", "one of"},
		{`{"type":"array","uniqueItems":true}`, `[1,2,1.0]`, "", "items at 0 and 2 are equal"},
		{`{"properties":{"a":false}}`, `{"a":1}`, "/a", "not allowed"},
		// reference path (anyOf is not on the fast path)
		{`{"properties":{"x":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"x":true}`, "/x", "expected string or integer, got boolean"},
	}
	for _, tc := range tests {
		t.Run(tc.schema+" "+tc.value, func(t *testing.T) {
			v, err := Compile("t", mustJSON(t, tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			err = v.Validate(value(t, tc.value))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate = %v, want *ValidationError", err)
			}
			if ve.Path != tc.path {
				t.Errorf("Path = %q, want %q (%v)", ve.Path, tc.path, ve)
			}
			if !strings.Contains(ve.Message, tc.msg) {
				t.Errorf("Message = %q, want it to contain %q", ve.Message, tc.msg)
			}
			if !strings.HasPrefix(ve.Error(), "at ") {
				t.Errorf("Error() = %q, want it to start with \"at \"", ve.Error())
			}
		})
	}
}

func TestFastPathEligibility(t *testing.T) {
	tests := []struct {
		schema string
		fast   bool
	}{
		{`{"type":"object","properties":{"msg":{"type":"string"},"n":{"type":"integer"}},"required":["msg"]}`, true},
		{`{"type":"object","properties":{"value":{}},"required":["value"]}`, true},
		{`{"type":["string","null"],"minLength":1,"pattern":"^\\d{3}-\\d{4}$","format":"date","description":"d","title":"t","default":"x","examples":["a"],"$comment":"c"}`, true},
		{`{"type":"array","prefixItems":[{"type":"integer"}],"items":false,"minItems":1,"maxItems":3,"uniqueItems":true}`, true},
		{`{"type":"number","minimum":0,"maximum":10,"exclusiveMinimum":-1,"exclusiveMaximum":11,"multipleOf":0.5}`, true},
		{`{"enum":[1,"a",null],"const":1,"x-extension":{"anything":true}}`, true},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":{"type":"string"},"minProperties":1}`, true},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"string"}`, false},
		{`{"$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s"}}}`, false},
		{`{"anyOf":[{"type":"string"}]}`, false},
		{`{"if":{"type":"string"},"then":{"minLength":1}}`, false},
		{`{"properties":{"a":{"not":{}}}}`, false},
		{`{"patternProperties":{"^x":{}}}`, false},
		{`{"dependentRequired":{"a":["b"]}}`, false},
		{`{"propertyNames":{"maxLength":3}}`, false},
		{`{"unevaluatedProperties":false}`, false},
		{`{"contains":{"type":"string"}}`, false},
		{`{"type":"string","pattern":"a.b"}`, false},
		{`{"type":"string","pattern":"^(?=a)"}`, false},
		{`{"type":"string","pattern":"\\s"}`, false},
		{`{"type":"string","pattern":"[[]"}`, false},
		{`{"type":"string","pattern":"\\bword\\b"}`, false},
	}
	for _, tc := range tests {
		v, err := Compile("elig", mustJSON(t, tc.schema))
		if err != nil {
			t.Fatalf("Compile(%s): %v", tc.schema, err)
		}
		if v.Fast() != tc.fast {
			t.Errorf("Fast() = %v for %s, want %v", v.Fast(), tc.schema, tc.fast)
		}
	}
}

func TestECMAPatternFallback(t *testing.T) {
	v, err := Compile("ecma", mustJSON(t, `{"type":"string","pattern":"^(?!admin$)[a-z]+$"}`))
	if err != nil {
		t.Fatalf("an ECMA look-ahead pattern must compile: %v", err)
	}
	if err := v.Validate("alice"); err != nil {
		t.Errorf("alice: %v", err)
	}
	if err := v.Validate("admin"); err == nil {
		t.Error("admin accepted by a negative look-ahead")
	}
}

func TestNonCanonicalValuesGoToReference(t *testing.T) {
	v := MustCompile("nc", mustJSON(t, `{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`))
	if !v.Fast() {
		t.Fatal("schema should be on the fast path")
	}
	if err := v.Validate(map[string]any{"n": 5}); err != nil { // Go int, not int64
		t.Errorf("int 5: %v", err)
	}
	if err := v.Validate(map[string]any{"n": 0}); err == nil {
		t.Error("int 0 accepted below minimum 1")
	}
}

func TestSchemaDocumentNotModified(t *testing.T) {
	props := map[string]any{"n": map[string]any{"type": "integer", "minimum": 1}}
	doc := map[string]any{"type": "object", "properties": props}
	if _, err := Compile("keep", doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := props["n"].(map[string]any)["minimum"].(int); !ok {
		t.Error("Compile normalized the caller's document in place")
	}
}

func TestHonoursSchemaDraft(t *testing.T) {
	draft4 := `{"$schema":"http://json-schema.org/draft-04/schema#","type":"integer","maximum":5,"exclusiveMaximum":true}`
	v, err := Compile("d4", mustJSON(t, draft4))
	if err != nil {
		t.Fatalf("draft-04 schema: %v", err)
	}
	if v.Fast() {
		t.Error("draft-04 schema must use the reference")
	}
	if v.Validate(int64(5)) == nil || v.Validate(int64(4)) != nil {
		t.Error("draft-04 boolean exclusiveMaximum not honoured")
	}
	// The same keywords are invalid in 2020-12 (the default draft).
	if _, err := Compile("d2020", mustJSON(t, `{"type":"integer","maximum":5,"exclusiveMaximum":true}`)); err == nil {
		t.Error("boolean exclusiveMaximum accepted under draft 2020-12")
	}
	// draft-07 asserts format by default; 2020-12 treats it as an annotation.
	d7 := MustCompile("d7", mustJSON(t, `{"$schema":"http://json-schema.org/draft-07/schema#","format":"ipv4"}`))
	d20 := MustCompile("d20", mustJSON(t, `{"format":"ipv4"}`))
	if d7.Validate("not-an-ip") == nil {
		t.Error("draft-07 format not asserted")
	}
	if d20.Validate("not-an-ip") != nil {
		t.Error("2020-12 format asserted")
	}
}

func TestConcurrentValidate(t *testing.T) {
	fast := MustCompile("f", mustJSON(t, benchSchema))
	ref := MustCompile("r", mustJSON(t, `{"type":"object","properties":{"s":{"type":"string","pattern":"^(?!x)a.c$"}}}`))
	done := make(chan bool)
	for g := range 4 {
		go func() {
			ok := true
			for i := range 200 {
				if fast.Validate(map[string]any{"msg": "m", "n": int64(i)}) != nil || fast.Validate(map[string]any{"msg": g}) == nil {
					ok = false
				}
				if ref.Validate(map[string]any{"s": "abc"}) != nil || ref.Validate(map[string]any{"s": "xbc"}) == nil {
					ok = false
				}
			}
			done <- ok
		}()
	}
	for range 4 {
		if !<-done {
			t.Error("wrong verdict under concurrency")
		}
	}
}

// TestOneOfErrorNamesTheChosenBranch: a WIT variant is a oneOf of its
// cases; a value that picks a case ("rect") but gets its payload wrong is
// reported at the payload, not as "tag must be 'circle'" from the first
// case; a tag no case has lists every case; a list<u8> (a base64 string or
// an array of bytes) with a byte of 300 names that byte.
func TestOneOfErrorNamesTheChosenBranch(t *testing.T) {
	shape := MustCompile("shape", map[string]any{"oneOf": []any{
		map[string]any{"type": "object", "required": []any{"tag", "val"}, "properties": map[string]any{
			"tag": map[string]any{"const": "circle"}, "val": map[string]any{"type": "number"}}},
		map[string]any{"type": "object", "required": []any{"tag", "val"}, "properties": map[string]any{
			"tag": map[string]any{"const": "rect"}, "val": map[string]any{"type": "object", "required": []any{"w", "h"},
				"properties": map[string]any{"w": map[string]any{"type": "integer", "maximum": int64(100)}, "h": map[string]any{"type": "integer"}}}}},
	}})
	bytesSchema := MustCompile("bytes", map[string]any{"anyOf": []any{
		map[string]any{"type": "string", "contentEncoding": "base64"},
		map[string]any{"type": "array", "items": map[string]any{"type": "integer", "minimum": int64(0), "maximum": int64(255)}},
	}})
	for _, tc := range []struct {
		v        *Validator
		value    any
		path     string
		contains string
	}{
		{shape, map[string]any{"tag": "rect", "val": map[string]any{"w": int64(500), "h": int64(1)}}, "/val/w", "must be <= 100, got 500"},
		{shape, map[string]any{"tag": "triangle", "val": int64(1)}, "/tag", "value must be one of 'circle', 'rect'"},
		{bytesSchema, []any{int64(1), int64(2), int64(300)}, "/2", "must be <= 255, got 300"},
	} {
		err := tc.v.Validate(tc.value)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Path != tc.path || !strings.Contains(ve.Message, tc.contains) {
			t.Errorf("Validate(%v) = %v, want at %s: …%s…", tc.value, err, tc.path, tc.contains)
		}
	}
}
