package schema

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// JSON Schema 2020-12 (core §6.4): patterns "SHOULD be built with the "u"
// flag (or equivalent) to provide Unicode support"; the official test
// suite's optional/ecmascript-regex.json expects \p{Letter} to match é.
// Without the flag, ECMA-262 reads \p{L} as the literal "p{L}", so a name
// pattern such as ^\p{L}+$ refused every name.
func TestUnicodePatterns(t *testing.T) {
	cases := []struct {
		pattern, value string
		valid          bool
	}{
		{`^\p{L}+$`, "héllo", true},
		{`^\p{L}+$`, "p{L}", false},
		{`\p{Letter}cole`, "l'école", true},
		{`^\p{digit}+$`, "৪২", true},
		{`^\P{L}$`, "1", true},
		{`^\u{1F600}$`, "😀", true},
		{`^\w$`, "é", false},
		{`^\d+$`, "৪২", false},
		{`^\cC$`, "\u0003", true},
		{`^abc$`, "abc\n", false},
		{`^\s$`, "\u2003", true},
	}
	for _, c := range cases {
		v, err := Compile("t@1.0.0", map[string]any{"type": "string", "pattern": c.pattern})
		if err != nil {
			t.Errorf("%s: %v", c.pattern, err)
			continue
		}
		if err := v.Validate(c.value); (err == nil) != c.valid {
			t.Errorf("pattern %s, value %q: valid=%v, want %v (%v)", c.pattern, c.value, err == nil, c.valid, err)
		}
		pp, err := Compile("t@1.0.0", map[string]any{"type": "object", "patternProperties": map[string]any{c.pattern: true}, "additionalProperties": false})
		if err != nil {
			t.Errorf("%s: %v", c.pattern, err)
			continue
		}
		if err := pp.Validate(map[string]any{c.value: int64(1)}); (err == nil) != c.valid {
			t.Errorf("patternProperties %s, key %q: valid=%v, want %v (%v)", c.pattern, c.value, err == nil, c.valid, err)
		}
	}
}

// A pattern the fast path cannot take (here \w … \s) runs on regexp2, a
// backtracking engine, with a 100 ms timeout per match. Each string of an
// array was given its own 100 ms (200 ms with the timeout clock's
// granularity), so one call with a few thousand short strings — well under
// limits.max_params_bytes — held a core for minutes, whatever its deadline.
// Now all the matches of one validation share the budget, and a value whose
// patterns run out of time is refused, naming the pattern and the string.
func TestPatternBudgetPerValue(t *testing.T) {
	v := MustCompile("redos@1.0.0", map[string]any{"type": "array", "items": map[string]any{"type": "string", "pattern": `^(\w+\s?)*$`}})
	arr := make([]any, 20)
	for i := range arr {
		arr[i] = strings.Repeat("a", 40) + "!"
	}
	arr[3] = strings.Repeat("b", 40) + "!"
	start := time.Now()
	err := v.Validate(arr)
	if d := time.Since(start); d > patternTimeout+600*time.Millisecond {
		t.Errorf("validation of 20 strings took %v, want at most the per-value budget and the clock's granularity", d)
	}
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Path != "/0" || !strings.Contains(ve.Message, "pattern") {
		t.Errorf("err = %v, want a ValidationError at /0 naming the pattern", err)
	}
	// The budget is per validation: the next value is checked afresh.
	if err := v.Validate([]any{"hello world", "a b c"}); err != nil {
		t.Errorf("a plain value after a timed-out one: %v", err)
	}
}

// A timed-out match counted as "no match" (docs: the value is rejected), but
// under "not" no match is success: the value was accepted.
func TestPatternTimeoutUnderNot(t *testing.T) {
	v := MustCompile("redos@1.0.0", map[string]any{"type": "string", "not": map[string]any{"pattern": `^(\w+\s?)*$`}})
	if err := v.Validate(strings.Repeat("a", 40) + "!"); err == nil {
		t.Errorf("a value whose pattern timed out under not was accepted")
	}
	if err := v.Validate("a b!"); err != nil {
		t.Errorf("a value the pattern does not match, under not: %v", err)
	}
	if err := v.Validate("ab"); err == nil {
		t.Errorf("a value the pattern matches, under not, was accepted")
	}
}

// Concurrent validations of one validator each get their own budget and do
// not race (run with -race).
func TestPatternBudgetConcurrent(t *testing.T) {
	v := MustCompile("re@1.0.0", map[string]any{"type": "object", "patternProperties": map[string]any{`^(?!x)\w+$`: map[string]any{"type": "string", "pattern": `^(?=.)\w*\s?$`}}})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if err := v.Validate(map[string]any{"ab": "cd ", "cd": "x"}); err != nil {
					t.Error(err)
					return
				}
				if err := v.Validate(map[string]any{"ab": "c d"}); err == nil {
					t.Error("c d accepted")
					return
				}
			}
		}()
	}
	wg.Wait()
}

// The reference's messages quote the offending string whole: a 1 MiB
// string that failed a pattern or a format, or a 1 MiB extra property name,
// gave an InvalidParams message of 1 MiB (the fast path quotes nothing).
func TestErrorMessagesStayShort(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	cases := []struct {
		schema map[string]any
		value  any
		want   string
	}{
		{map[string]any{"type": "string", "pattern": `^(?=y)`}, big, `does not match pattern "^(?=y)"`},
		{map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "type": "string", "format": "email"}, big, "is not valid email"},
		{map[string]any{"type": "object", "additionalProperties": false, "not": map[string]any{"type": "null"}}, map[string]any{big: int64(1), "b": int64(2)}, "additional properties"},
		{map[string]any{"type": "object", "propertyNames": map[string]any{"maxLength": 3}}, map[string]any{big: int64(1)}, "maxLength"},
		{map[string]any{"type": "object", "additionalProperties": false}, map[string]any{big: int64(1), "b": int64(2)}, "additional properties"},
	}
	for _, c := range cases {
		err := MustCompile("t@1.0.0", c.schema).Validate(c.value)
		if err == nil {
			t.Errorf("%v: accepted", c.schema)
			continue
		}
		if msg := err.Error(); len(msg) > 400 || !strings.Contains(msg, c.want) {
			t.Errorf("%v: message of %d bytes (%.120s…), want a short one containing %q", c.schema, len(msg), msg, c.want)
		}
	}
}

// A schema whose $ref chain comes back to itself without descending into
// the value loops for ever (JSON Schema: undefined behaviour). It compiled,
// and then every call was refused as InvalidParams, blaming the caller for
// the tool's schema ("at /: both /$ref and  resolve to … causing reference
// cycle"). It is now refused when the tool registers, naming the tool.
func TestRefCycleRefusedAtCompile(t *testing.T) {
	for _, doc := range []map[string]any{
		{"$ref": "#"},
		{"allOf": []any{map[string]any{"$ref": "#"}}},
		{"$defs": map[string]any{"a": map[string]any{"$ref": "#/$defs/b"}, "b": map[string]any{"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
		{"type": "object", "anyOf": []any{map[string]any{"required": []any{"x"}}, map[string]any{"$ref": "#"}}},
	} {
		_, err := Compile("loop@1.0.0", doc)
		if err == nil || !strings.Contains(err.Error(), "loop@1.0.0") || !strings.Contains(err.Error(), "cycle") {
			t.Errorf("%v: err = %v, want a compile error naming the tool and the cycle", doc, err)
		}
	}
	// Recursion through the value is fine.
	tree := map[string]any{"$defs": map[string]any{"node": map[string]any{"type": "object", "properties": map[string]any{
		"children": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"}
	v, err := Compile("tree@1.0.0", tree)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(map[string]any{"children": []any{map[string]any{"children": []any{}}}}); err != nil {
		t.Fatal(err)
	}
}

// format "regex" (asserted in draft-07) compiles the instance's string with
// the compiler's regexp engine at validation time, concurrently: the engine
// must not write shared state then (run with -race).
func TestFormatRegexConcurrent(t *testing.T) {
	v := MustCompile("re@1.0.0", map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "type": "string", "format": "regex"})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if err := v.Validate(`^a+$`); err != nil {
					t.Error(err)
					return
				}
				if err := v.Validate(`(?P<x>a)`); err == nil {
					t.Error("a Go-only regex accepted as an ECMA-262 one")
					return
				}
			}
		}()
	}
	wg.Wait()
}

// The reference reads minLength, maxItems and the other counts with
// big.Int.Int64, whose result beyond int64 is the low 64 bits: maxLength
// 1.8446744073709552e19 (read as 18446744073709552000) became 384 and
// refused longer strings, minLength 1e19 became negative and accepted
// "abc". A count beyond int64 now means "more than any value has".
func TestHugeCounts(t *testing.T) {
	cases := []struct {
		schema map[string]any
		value  any
		valid  bool
	}{
		{map[string]any{"maxLength": 1.8446744073709552e19}, strings.Repeat("a", 400), true},
		{map[string]any{"minLength": 1e19}, "abc", false},
		{map[string]any{"minLength": 9.223372036854775807e18}, "abc", false},
		{map[string]any{"maxItems": 1.8446744073709552e19}, []any{int64(1)}, true},
		{map[string]any{"minItems": 1e19}, []any{int64(1)}, false},
		{map[string]any{"maxProperties": 1.8446744073709552e19}, map[string]any{"a": int64(1)}, true},
		{map[string]any{"properties": map[string]any{"a": map[string]any{"maxLength": 1.8446744073709552e19}}}, map[string]any{"a": strings.Repeat("a", 400)}, true},
		{map[string]any{"items": map[string]any{"minLength": 1e19}}, []any{"x"}, false},
		{map[string]any{"contains": map[string]any{"type": "integer"}, "maxContains": 1.8446744073709552e19}, []any{int64(1)}, true},
		// Not a keyword: a property named maxLength, and const data.
		{map[string]any{"properties": map[string]any{"maxLength": map[string]any{"type": "number"}}}, map[string]any{"maxLength": 1.8446744073709552e19}, true},
		{map[string]any{"const": map[string]any{"maxLength": 1.8446744073709552e19}}, map[string]any{"maxLength": 1.8446744073709552e19}, true},
	}
	for _, c := range cases {
		v, err := Compile("t@1.0.0", c.schema)
		if err != nil {
			t.Errorf("%v: %v", c.schema, err)
			continue
		}
		if err := v.Validate(c.value); (err == nil) != c.valid {
			t.Errorf("%v on %v: valid=%v, want %v (%v)", c.schema, c.value, err == nil, c.valid, err)
		}
	}
}

// An enum was searched linearly for every value: an array of 200 000
// strings against an enum of 10 000 names (a 2.4 MB call, under
// limits.max_params_bytes) took 16 s of CPU. The fast path now looks
// string enums up in a set.
func TestLargeStringEnum(t *testing.T) {
	enum := make([]any, 10000)
	for i := range enum {
		enum[i] = fmt.Sprintf("city-%d", i)
	}
	v := MustCompile("t@1.0.0", map[string]any{"type": "array", "items": map[string]any{"enum": enum}})
	arr := make([]any, 200000)
	for i := range arr {
		arr[i] = "city-9999"
	}
	start := time.Now()
	if err := v.Validate(arr); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	arr[150000] = "city-10000"
	if err := v.Validate(arr); err == nil || !strings.Contains(err.Error(), "/150000") {
		t.Errorf("err = %v, want the value at /150000 refused", err)
	}
	for _, x := range []any{int64(1), nil, []any{"city-1"}, map[string]any{"city-1": true}} {
		if err := v.Validate([]any{x}); err == nil {
			t.Errorf("%v accepted by a string enum", x)
		}
	}
	mixed := MustCompile("t@1.0.0", map[string]any{"enum": append(enum[:20:20], int64(1))})
	if err := mixed.Validate(1.0); err != nil {
		t.Errorf("1.0 against an enum holding 1: %v", err)
	}
}

// TestEmptyMemberNamed: a member named "" is the JSON pointer "/", which
// the error text also used for the instance itself; it says which it is.
func TestEmptyMemberNamed(t *testing.T) {
	v, err := Compile("t", map[string]any{"type": "object", "properties": map[string]any{
		"":  map[string]any{"type": "string"},
		"a": map[string]any{"type": "object", "properties": map[string]any{"": map[string]any{"type": "string"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		value any
		want  string
	}{
		{map[string]any{"": 1}, `at / (a step is a member named ""): expected string`},
		{map[string]any{"a": map[string]any{"": 1}}, `at /a/ (a step is a member named ""): expected string`},
		{5, `at /: expected object`},
	} {
		if err := v.Validate(c.value); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v: %v; want %q", c.value, err, c.want)
		}
	}
}
