package registry

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestSemverInsertRefusalNamesTheRefused: under refuse, org.c's t@1.1.0,
// inserted below org.b's t@1.2.0 which narrows what it accepts, was
// refused with "tool t@1.2.0 (provider org.b) breaks callers of t@1.1.0
// (provider org.c) … release it as 2.0.0, or keep the old schema": advice
// for org.b's release, which is not being registered, and nothing saying
// that org.c's 1.1.0 is what was refused. The message now says so and what
// org.c can do; Data names it (refused). A release of the registering
// provider breaking the version below keeps its advice.
func TestSemverInsertRefusalNamesTheRefused(t *testing.T) {
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
	err := r.Register(prov("org.c"), []abi.ToolDef{withParams("t", "1.1.0", wide)})
	wantCode(t, err, abi.InvalidRequest, "breaks callers of t@1.1.0 (provider org.c)",
		"t@1.1.0 of provider org.c is refused", "a schema t@1.2.0 keeps")
	te := abi.AsToolError(err, abi.Internal)
	if got := te.Data.(map[string]any)["refused"]; got != "t@1.1.0" {
		t.Errorf("Data.refused = %v", got)
	}
	if len(r.Versions("t")) != 2 {
		t.Errorf("versions after the refusal: %v", r.Versions("t"))
	}
	// A release of the registering provider's own: the advice is its to follow.
	r = New()
	if err := r.SetSemverCheck(SemverRefuse, nil); err != nil {
		t.Fatal(err)
	}
	err = r.Register(prov("org.a"), []abi.ToolDef{withParams("t", "1.0.0", str), withParams("t", "1.1.0", wide), withParams("t", "1.2.0", str)})
	wantCode(t, err, abi.InvalidRequest, "t@1.2.0 (provider org.a) breaks callers of t@1.1.0 (provider org.a)", "release it as 2.0.0")
}
