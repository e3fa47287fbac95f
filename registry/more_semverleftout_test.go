package registry

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestLeftOutSiblingSemverWarn: under SemverWarn a left-out version
// is "checked now, beside what is served" — but not beside its own
// provider's other left-out versions. org.b's t@1.1.0 breaks org.b's own
// t@1.0.0; both are left out under a more trusted holder of t@2.0.0 (a
// major bump, so no comparison with it). When the holder leaves both are
// served with no Violation, no warning — the same registration without
// the holder warns.
func TestLeftOutSiblingSemverWarn(t *testing.T) {
	r := New()
	var warned []SemverViolation
	if err := r.SetSemverCheck(SemverWarn, func(v SemverViolation) { warned = append(warned, v) }); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(trusted("org.h", abi.System), []abi.ToolDef{withParams("t", "2.0.0", propsA, "a")}); err != nil {
		t.Fatal(err)
	}
	rep, err := r.Apply(prov("org.b"), []abi.ToolDef{
		withParams("t", "1.0.0", propsA, "a"),
		withParams("t", "1.1.0", propsAB, "a", "b"),
	}, Options{Partial: true})
	if err != nil || len(rep.LeftOut) != 2 {
		t.Fatalf("%v %+v", err, rep)
	}
	if err := r.Unregister("org.h"); err != nil {
		t.Fatal(err)
	}
	e, err := r.Resolve("t", "1.1.0")
	if err != nil || e.Provider.Info.ID != "org.b" {
		t.Fatalf("t@1.1.0 = %v, %v; want org.b's, restored", e, err)
	}
	if e.Violation == nil || len(warned) == 0 {
		t.Errorf("org.b's t@1.1.0 breaks org.b's t@1.0.0 (both left out, then served): Violation %v, %d warnings; want it reported as without the holder", e.Violation, len(warned))
	}
	// Control: the same registration alone warns.
	r2 := New()
	var w2 []SemverViolation
	_ = r2.SetSemverCheck(SemverWarn, func(v SemverViolation) { w2 = append(w2, v) })
	if err := r2.Register(prov("org.b"), []abi.ToolDef{withParams("t", "1.0.0", propsA, "a"), withParams("t", "1.1.0", propsAB, "a", "b")}); err != nil {
		t.Fatal(err)
	}
	if len(w2) == 0 {
		t.Fatalf("control: no warning without the holder either")
	}
}
