package registry

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/schema"
)

// TestSemverInsertBelow: under refuse, a version registered between two
// existing ones is compared with the one above it too (a probe found it
// compared only with the one below, so 1.2.0 ended up breaking callers of
// 1.1.0 within major 1).
func TestSemverInsertBelow(t *testing.T) {
	r := New()
	if err := r.SetSemverCheck(SemverRefuse, nil); err != nil {
		t.Fatal(err)
	}
	str := map[string]any{"a": map[string]any{"type": "string"}}
	wide := map[string]any{"a": map[string]any{"type": []any{"string", "integer"}}}
	if err := r.Register(prov("org.a"), []abi.ToolDef{withParams("t", "1.0.0", str)}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(prov("org.b"), []abi.ToolDef{withParams("t", "1.2.0", str)}); err != nil {
		t.Fatal(err)
	}
	// 1.1.0 widens a (compatible with 1.0.0); 1.2.0 narrows it again.
	err := r.Register(prov("org.c"), []abi.ToolDef{withParams("t", "1.1.0", wide)})
	if d, derr := r.Diff("t", "1.1.0", "1.2.0"); err == nil && derr == nil && d.Breaking {
		t.Fatalf("refuse mode registered 1.1.0, and now 1.2.0 breaks its callers without a major increase: %v", d.Changes)
	}
}

// TestDiffAdditionalPropertiesSchema: a parameters schema whose
// additionalProperties accepted strings for any name gains property x of
// type integer: {"x":"s"} may now be refused, so the addition counts as
// breaking (it was reported as compatible).
func TestDiffAdditionalPropertiesSchema(t *testing.T) {
	old := map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}
	nw := map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"},
		"properties": map[string]any{"x": map[string]any{"type": "integer"}}}
	if cs := schema.Diff(old, nw, schema.Params); !schema.Breaking(cs) {
		t.Fatalf("narrowing reported as compatible: %v", cs)
	}
}

// TestDiffPatternProperties: a property added under a name that
// patternProperties already constrained (strings) may refuse what callers
// sent: breaking.
func TestDiffPatternProperties(t *testing.T) {
	pp := map[string]any{"^x": map[string]any{"type": "string"}}
	old := map[string]any{"type": "object", "patternProperties": pp}
	nw := map[string]any{"type": "object", "patternProperties": pp,
		"properties": map[string]any{"x": map[string]any{"type": "integer"}}}
	if cs := schema.Diff(old, nw, schema.Params); !schema.Breaking(cs) {
		t.Fatalf("x (a string before, any string accepted) can now be nothing; reported as compatible: %v", cs)
	}
}
