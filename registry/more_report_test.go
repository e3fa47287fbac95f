package registry

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestDisplacedReportedOnce: a more trusted provider registering two
// versions of a name that a less trusted provider serves one version of
// displaces that version once; Report.Displaced must list it once.
func TestDisplacedReportedOnce(t *testing.T) {
	r := New()
	r.SetSemverCheck(SemverOff, nil)
	if err := r.Register(trusted("org.low", abi.Community), []abi.ToolDef{tool("foo", "1.5.0")}); err != nil {
		t.Fatal(err)
	}
	rep, err := r.Apply(trusted("org.high", abi.Verified), []abi.ToolDef{tool("foo", "1.0.0"), tool("foo", "2.0.0")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Displaced) != 1 {
		t.Errorf("Displaced = %+v, want foo@1.5.0 of org.low once", rep.Displaced)
	}
}

// TestReloadReportsNoDisplacement: a hot reload of the more trusted
// provider with the very same tools changes nothing for the less trusted
// one (its version stays shadowed, no event); the Report must not say it
// was displaced (the host logs a warning for each Displaced).
func TestReloadReportsNoDisplacement(t *testing.T) {
	r := New()
	r.SetSemverCheck(SemverOff, nil)
	if err := r.Register(trusted("org.low", abi.Community), []abi.ToolDef{tool("foo", "1.5.0")}); err != nil {
		t.Fatal(err)
	}
	high := []abi.ToolDef{tool("foo", "1.0.0"), tool("foo", "2.0.0")}
	if err := r.Register(trusted("org.high", abi.Verified), high); err != nil {
		t.Fatal(err)
	}
	events, cancel := r.Subscribe(100)
	defer cancel()
	rep, err := r.Apply(trusted("org.high", abi.Verified), high, Options{Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	for len(events) > 0 {
		if ev := <-events; ev.Provider != nil && ev.Provider.ID == "org.low" {
			t.Errorf("event for org.low: %+v", ev)
		}
	}
	if len(rep.Displaced) != 0 || len(rep.Restored) != 0 {
		t.Errorf("reload that changed nothing reports Displaced %+v Restored %+v", rep.Displaced, rep.Restored)
	}
}
