package schema

import (
	"testing"
)

// TestConstAndEnumComparedAsOneSetOfValues: const and enum both say which
// values a schema allows, and const "a" allows what enum ["a"] does. Diff
// compared them keyword by keyword, so a publisher writing one as the
// other (const "fast" → enum ["fast"]) was told it breaks callers both
// ways (enum-added narrowing the parameters, const-removed widening the
// result) and refused under registry.semver_check: refuse; and enum
// ["a","b"] → const "a", a result that narrows (compatible), broke callers
// for the enum removed. The two keywords are now judged together by the
// values they allow.
func TestConstAndEnumComparedAsOneSetOfValues(t *testing.T) {
	for _, c := range []struct {
		old, new              string
		breaksParams, breaksR bool
	}{
		{`{"const":"a"}`, `{"enum":["a"]}`, false, false},
		{`{"enum":["a"]}`, `{"const":"a"}`, false, false},
		{`{"enum":[1]}`, `{"const":1.0}`, false, false},
		{`{"enum":["a","b"]}`, `{"const":"a"}`, true, false},
		{`{"const":"a"}`, `{"enum":["a","b"]}`, false, true},
		{`{"const":"a"}`, `{"enum":["b","c"]}`, true, true},
		{`{"const":"a"}`, `{}`, false, true},
		{`{}`, `{"const":"a"}`, true, false},
		{`{"const":"a"}`, `{"const":"b"}`, true, true},
		{`{"const":"a","enum":["a","b"]}`, `{"const":"a"}`, false, false},
		{`{"enum":["a","b"]}`, `{"const":"a","enum":["a","b"]}`, true, false},
	} {
		o, n := mustJSON(t, c.old), mustJSON(t, c.new)
		p, r := Diff(o, n, Params), Diff(o, n, Returns)
		if Breaking(p) != c.breaksParams || Breaking(r) != c.breaksR {
			t.Errorf("%s → %s: parameters breaking %v (want %v) %v; returns breaking %v (want %v) %v",
				c.old, c.new, Breaking(p), c.breaksParams, p, Breaking(r), c.breaksR, r)
		}
		if c.old != c.new && len(p) == 0 {
			t.Errorf("%s → %s: no change listed", c.old, c.new)
		}
	}
}

// TestTypeBesideEnumJudgedByTheValuesAllowed: a type beside an enum or
// const that allows only values of that type says nothing more, yet
// dropping it ({"type":"string","enum":["a","b"]} → {"enum":["a","b"]})
// was a type-widened change that broke a result's callers, and adding one
// (for values all of it) narrowed parameters. The type change is now
// judged by the types of the values the schema allows.
func TestTypeBesideEnumJudgedByTheValuesAllowed(t *testing.T) {
	for _, c := range []struct {
		old, new              string
		breaksParams, breaksR bool
	}{
		{`{"type":"string","enum":["a","b"]}`, `{"enum":["a","b"]}`, false, false},
		{`{"enum":["a","b"]}`, `{"type":"string","enum":["a","b"]}`, false, false},
		{`{"type":"integer","const":3}`, `{"type":["integer","string"],"const":3}`, false, false},
		{`{"type":"number","enum":[1,2.5]}`, `{"type":"integer","enum":[1,2.5]}`, true, false},
		{`{"type":"string","enum":["a",1]}`, `{"enum":["a",1]}`, false, true},
		{`{"type":"string","enum":["a"]}`, `{"type":"integer","enum":["a"]}`, true, false},
		{`{"type":"string"}`, `{"type":["string","null"]}`, false, true},
	} {
		o, n := mustJSON(t, c.old), mustJSON(t, c.new)
		p, r := Diff(o, n, Params), Diff(o, n, Returns)
		if Breaking(p) != c.breaksParams || Breaking(r) != c.breaksR {
			t.Errorf("%s → %s: parameters breaking %v (want %v) %v; returns breaking %v (want %v) %v",
				c.old, c.new, Breaking(p), c.breaksParams, p, Breaking(r), c.breaksR, r)
		}
		if len(p) == 0 {
			t.Errorf("%s → %s: no change listed", c.old, c.new)
		}
	}
}
