package registry

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestViolationWithinOneRegistrationReportedOnce: a provider registering
// t@1.1.0 (a takes a string or an integer) and t@1.2.0 (a string only)
// together broke SemVer once — 1.2.0 breaks callers of 1.1.0 — but the
// check of 1.1.0 found 1.2.0 above it as if 1.1.0 had been inserted below
// an existing release, and the check of 1.2.0 found 1.1.0 below it: the
// one violation was warned twice, listed twice in the event, and carried
// by 1.1.0 too, so tools/list showed the version whose callers are broken
// as breaking SemVer. It is reported once, by 1.2.0; a version inserted
// below another provider's (or an unchanged) release still carries it
// (TestToolsChangedViolationOfInsertedVersion).
func TestViolationWithinOneRegistrationReportedOnce(t *testing.T) {
	r := New()
	var warned []SemverViolation
	if err := r.SetSemverCheck(SemverWarn, func(v SemverViolation) { warned = append(warned, v) }); err != nil {
		t.Fatal(err)
	}
	ch, cancel := r.Subscribe(8)
	defer cancel()
	str := map[string]any{"a": map[string]any{"type": "string"}}
	wide := map[string]any{"a": map[string]any{"type": []any{"string", "integer"}}}
	if err := r.Register(prov("org.a"), []abi.ToolDef{withParams("t", "1.1.0", wide), withParams("t", "1.2.0", str)}); err != nil {
		t.Fatal(err)
	}
	for _, e := range r.Versions("t") {
		switch e.ver {
		case "1.1.0":
			if e.Violation != nil {
				t.Errorf("t@1.1.0, whose callers 1.2.0 breaks, carries the violation %s", e.Violation)
			}
		case "1.2.0":
			if e.Violation == nil || e.Violation.Version != "1.2.0" || e.Violation.Previous != "1.1.0" {
				t.Errorf("t@1.2.0 carries %v, want its breaking callers of 1.1.0", e.Violation)
			}
		}
	}
	if len(warned) != 1 {
		t.Errorf("warned %d times, want once: %+v", len(warned), warned)
	}
	if ev := <-ch; len(ev.Violations) != 1 {
		t.Errorf("event lists %d violations, want 1: %+v", len(ev.Violations), ev.Violations)
	}

	// A reload adding 1.1.0 below the provider's unchanged 1.2.0 is an
	// insertion below a release that is not checked again: 1.1.0 carries it.
	r2 := New()
	if err := r2.Register(prov("org.a"), []abi.ToolDef{withParams("t", "1.2.0", str)}); err != nil {
		t.Fatal(err)
	}
	if err := r2.Replace(prov("org.a"), []abi.ToolDef{withParams("t", "1.1.0", wide), withParams("t", "1.2.0", str)}); err != nil {
		t.Fatal(err)
	}
	for _, e := range r2.Versions("t") {
		if e.ver == "1.1.0" && (e.Violation == nil || e.Violation.Version != "1.2.0") {
			t.Errorf("t@1.1.0 inserted below the unchanged 1.2.0 carries %v, want 1.2.0's violation", e.Violation)
		}
	}
}
