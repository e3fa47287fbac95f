package registry

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestRestoredVersionSemverWarn: under the default SemverWarn, a
// version left out at registration is "checked if it is ever served"
// (apply.go), but restoreGate is nil unless SemverRefuse: when it is
// served again it is never compared, so a breaking t@1.1.0 gets no
// Entry.Violation, no warning and no Event.Violations — whereas the very
// same registration without the holder gets all three.
func TestRestoredVersionSemverWarn(t *testing.T) {
	r := New()
	var warned []SemverViolation
	if err := r.SetSemverCheck(SemverWarn, func(v SemverViolation) { warned = append(warned, v) }); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(prov("org.a"), []abi.ToolDef{withParams("t", "1.0.0", propsA, "a")}); err != nil {
		t.Fatal(err)
	}
	// org.c holds t@1.1.0 (compatible); org.b's t@1.1.0 adds a required
	// parameter b (breaks callers of 1.0.0) and is left out.
	if err := r.Register(prov("org.c"), []abi.ToolDef{withParams("t", "1.1.0", propsAB, "a")}); err != nil {
		t.Fatal(err)
	}
	rep, err := r.Apply(prov("org.b"), []abi.ToolDef{withParams("t", "1.1.0", propsAB, "a", "b")}, Options{Partial: true})
	if err != nil || len(rep.LeftOut) != 1 {
		t.Fatalf("%v %+v", err, rep)
	}
	events, cancel := r.Subscribe(16)
	defer cancel()
	if err := r.Unregister("org.c"); err != nil {
		t.Fatal(err)
	}
	e, err := r.Resolve("t", "1.1.0")
	if err != nil || e.Provider.Info.ID != "org.b" {
		t.Fatalf("t@1.1.0 = %v, %v; want org.b's, restored", e, err)
	}
	var evViolations int
	for len(events) > 0 {
		evViolations += len((<-events).Violations)
	}
	if e.Violation == nil || len(warned) == 0 {
		t.Errorf("restored breaking t@1.1.0: Violation %v, %d warnings, %d event violations; want the SemVer violation against 1.0.0 reported as at registration",
			e.Violation, len(warned), evViolations)
	}
}
