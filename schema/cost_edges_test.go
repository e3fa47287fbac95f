package schema

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// compileWithin compiles doc, failing the test when that takes longer than
// d (the compilation is left running: it may never end).
func compileWithin(t *testing.T, d time.Duration, name string, doc map[string]any) (*Validator, error) {
	t.Helper()
	type res struct {
		v   *Validator
		err error
	}
	ch := make(chan res, 1)
	go func() {
		v, err := Compile(name, doc)
		ch <- res{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-time.After(d):
		t.Fatalf("Compile(%s) did not return within %v", name, d)
		return nil, nil
	}
}

// chain returns $defs a0 … an, each applying the next twice through kw
// (an is {}), and a root applying a0, under a property when under is set.
func chain(n int, kw string, under bool) map[string]any {
	defs := map[string]any{fmt.Sprintf("a%d", n): map[string]any{}}
	for i := n - 1; i >= 0; i-- {
		next := map[string]any{"$ref": fmt.Sprintf("#/$defs/a%d", i+1)}
		switch kw {
		case "properties": // the next one twice for member x
			defs[fmt.Sprintf("a%d", i)] = map[string]any{"type": "object",
				"properties": map[string]any{"x": next}, "patternProperties": map[string]any{"^x$": next}}
		default:
			defs[fmt.Sprintf("a%d", i)] = map[string]any{kw: []any{next, next}}
		}
	}
	root := map[string]any{"$defs": defs}
	if under {
		root["type"] = "object"
		root["properties"] = map[string]any{"p": map[string]any{"$ref": "#/$defs/a0"}}
	} else {
		root["$ref"] = "#/$defs/a0"
	}
	return root
}

// TestExponentialSchemaRefused: a schema of 40 small definitions,
// each applying the next twice (allOf, anyOf, oneOf, or a property and a
// matching patternProperties for the same member), makes 2^40 evaluations
// of one value. It compiled — or rather its compilation's reference-cycle
// check, validating an empty value, never ended — and a call's validation,
// which runs before the provider and outside its deadline, held a core for
// hours. Such a schema is refused when it compiles, naming the tool, the
// place and the count.
func TestExponentialSchemaRefused(t *testing.T) {
	for _, kw := range []string{"allOf", "anyOf", "oneOf", "properties"} {
		for _, under := range []bool{false, true} {
			_, err := compileWithin(t, 10*time.Second, "boom@1.0.0 parameters", chain(40, kw, under))
			if err == nil {
				t.Errorf("%s chain (under a property: %v) compiled", kw, under)
				continue
			}
			for _, want := range []string{"boom@1.0.0 parameters", "schema evaluations", "/$defs/a"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s chain: error %q does not name %q", kw, err, want)
				}
			}
		}
	}
	// A union of node kinds each recursing through "children" is
	// validated under every branch per level (3^depth): refused too.
	var kinds []any
	for _, k := range []string{"a", "b", "c"} {
		kinds = append(kinds, map[string]any{"type": "object", "properties": map[string]any{
			"kind": map[string]any{"const": k}, "children": map[string]any{"type": "array", "items": map[string]any{"$ref": "#"}}}})
	}
	if _, err := compileWithin(t, 10*time.Second, "tree@1.0.0", map[string]any{"oneOf": kinds}); err == nil || !strings.Contains(err.Error(), "schema evaluations") {
		t.Errorf("a union of recursive node kinds: %v, want it refused for its cost", err)
	}
	// A short chain costs little and stays valid: 2^5 evaluations.
	v, err := Compile("ok@1.0.0", chain(5, "allOf", true))
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(map[string]any{"p": int64(1)}); err != nil {
		t.Error(err)
	}
}

// TestRefCycleUnderPropertyRefused: a $ref cycle reached only under a
// property was refused per call (blaming the caller: InvalidParams), and a
// clique of definitions each applying all the others in allOf made a
// factorial number of evaluations before the cycle was seen. Every such
// cycle is refused at compile time, naming where.
func TestRefCycleUnderPropertyRefused(t *testing.T) {
	clique := map[string]any{}
	for i := range 12 {
		var all []any
		for j := range 12 {
			if j != i {
				all = append(all, map[string]any{"$ref": fmt.Sprintf("#/$defs/c%d", j)})
			}
		}
		clique[fmt.Sprintf("c%d", i)] = map[string]any{"allOf": all}
	}
	for _, doc := range []map[string]any{
		{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/a"}},
			"$defs": map[string]any{"a": map[string]any{"$ref": "#/$defs/b"}, "b": map[string]any{"not": map[string]any{"$ref": "#/$defs/a"}}}},
		{"type": "array", "items": map[string]any{"$ref": "#/$defs/c0"}, "$defs": clique},
	} {
		_, err := compileWithin(t, 10*time.Second, "loop@1.0.0 parameters", doc)
		if err == nil || !strings.Contains(err.Error(), "loop@1.0.0 parameters") || !strings.Contains(err.Error(), "reference cycle") ||
			!strings.Contains(err.Error(), "/$defs/") {
			t.Errorf("err = %v, want a compile error naming the tool, the cycle and where", err)
		}
	}
}

// TestCostOfOrdinarySchemas: schemas that apply a definition once per
// level, however deep the value, and wide unions, compile and validate.
func TestCostOfOrdinarySchemas(t *testing.T) {
	var cases []any
	for i := range 300 {
		cases = append(cases, map[string]any{"type": "object", "required": []any{"tag"}, "properties": map[string]any{
			"tag": map[string]any{"const": fmt.Sprintf("case-%d", i)}, "val": map[string]any{"$ref": "#/$defs/node"}}})
	}
	docs := []map[string]any{
		// a tree: children of children …
		{"$defs": map[string]any{"node": map[string]any{"type": "object", "properties": map[string]any{
			"name": map[string]any{"type": "string"}, "children": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/node"}}},
			"additionalProperties": map[string]any{"$ref": "#/$defs/node"}}}, "$ref": "#/$defs/node"},
		// a variant of 300 cases whose payload is a tree
		{"oneOf": cases, "$defs": map[string]any{"node": map[string]any{"type": "object", "properties": map[string]any{
			"kids": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/node"}}}}}},
		// a model composed with allOf, each part recursing through its own property
		{"$defs": map[string]any{
			"base": map[string]any{"type": "object", "properties": map[string]any{"parent": map[string]any{"$ref": "#/$defs/node"}, "id": map[string]any{"type": "string"}}},
			"node": map[string]any{"allOf": []any{map[string]any{"$ref": "#/$defs/base"},
				map[string]any{"properties": map[string]any{"children": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/node"}}}}},
				"unevaluatedProperties": false}}, "$ref": "#/$defs/node"},
		// if/then/else recursing through the same member in then and in else
		{"type": "object", "if": map[string]any{"properties": map[string]any{"t": map[string]any{"const": "a"}}},
			"then": map[string]any{"properties": map[string]any{"next": map[string]any{"$ref": "#"}}},
			"else": map[string]any{"properties": map[string]any{"next": map[string]any{"$ref": "#"}, "n": map[string]any{"type": "integer"}}}},
		// extensions by pattern, anything else by additionalProperties, recursively
		{"type": "object", "patternProperties": map[string]any{"^x-": map[string]any{"$ref": "#"}}, "additionalProperties": map[string]any{"$ref": "#"}},
		// a parameter that is itself a JSON Schema
		{"type": "object", "properties": map[string]any{"schema": map[string]any{"$ref": "https://json-schema.org/draft/2020-12/schema"}}},
		{"type": "object", "properties": map[string]any{"schema": map[string]any{"$ref": "http://json-schema.org/draft-07/schema#"}}},
	}
	for i, doc := range docs {
		if _, err := compileWithin(t, 10*time.Second, fmt.Sprintf("ok%d@1.0.0", i), doc); err != nil {
			t.Errorf("schema %d: %v", i, err)
		}
	}
}

// TestCostOfWideUnionLinear: the cost check copied the member names
// of a schema into every $ref to it, and scanned them for every such $ref:
// an anyOf of 3000 object branches, each with a property referring back
// to the root, took 40 s to register (4000: 72 s). Names are shared until
// changed and their largest cost kept, so it takes milliseconds.
func TestCostOfWideUnionLinear(t *testing.T) {
	var branches []any
	for i := range 3000 {
		branches = append(branches, map[string]any{"type": "object", "properties": map[string]any{fmt.Sprintf("p%d", i): map[string]any{"$ref": "#"}}})
	}
	// CPU time, not wall time: under a loaded -race run the linear
	// compile took 10 s of wall time (the package's tests run one at a
	// time, so the process's CPU is this compile's).
	cpu := testutil.ProcessCPU()
	if _, err := compileWithin(t, 60*time.Second, "wide@1.0.0", map[string]any{"anyOf": branches}); err != nil {
		t.Fatal(err)
	}
	if d := testutil.ProcessCPU() - cpu; d > 8*time.Second {
		t.Errorf("compiling took %v of CPU", d)
	}
}
