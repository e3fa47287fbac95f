package registry

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// An Untrusted provider serves hello@1.0.0 and hello@2.0.0; a Verified one
// then registers hello@2.0.0 and displaces that version only. The
// Untrusted provider's unchanged hot reload (same tools) is accepted: a
// version it served is not "another version of a more trusted one's
// tool" (it was refused once, found by a probe).
func TestUnchangedReloadAfterDisplacement(t *testing.T) {
	r := New()
	u := []abi.ToolDef{tool("hello", "1.0.0"), tool("hello", "2.0.0")}
	if err := r.Register(trusted("org.u", abi.Untrusted), u); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(trusted("org.v", abi.Verified), []abi.ToolDef{tool("hello", "2.0.0")}); err != nil {
		t.Fatal(err)
	}
	if err := r.Replace(trusted("org.u", abi.Untrusted), u); err != nil {
		t.Fatalf("unchanged reload of the displaced provider refused: %v", err)
	}
}

// SemverRefuse: a breaking minor release is refused when registered
// directly; one left out (a more trusted provider holds the name) is
// checked when it would be served again, and stays shadowed.
func TestRestoredVersionSemverRefuse(t *testing.T) {
	bad := []abi.ToolDef{withParams("t", "1.0.0", propsAB, "a"), withParams("t", "1.1.0", propsA, "a", "b")}
	direct := New()
	if err := direct.SetSemverCheck(SemverRefuse, nil); err != nil {
		t.Fatal(err)
	}
	if err := direct.Register(trusted("org.l", abi.Community), bad); err == nil {
		t.Fatal("setup: the breaking release is not refused when registered directly")
	}

	r := New()
	if err := r.SetSemverCheck(SemverRefuse, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(trusted("org.h", abi.System), []abi.ToolDef{withParams("t", "1.1.0", propsAB, "a")}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Apply(trusted("org.l", abi.Community), bad, Options{Partial: true}); err != nil {
		t.Fatal(err)
	}
	if err := r.Unregister("org.h"); err != nil {
		t.Fatal(err)
	}
	for _, e := range r.Versions("t") {
		if e.ver == "1.1.0" && e.Provider.Info.ID == "org.l" {
			t.Fatalf("t@1.1.0 of org.l (breaks t@1.0.0 without a major bump) is served after a restore under semver_check: refuse (violation recorded: %v)", e.Violation != nil)
		}
	}
}

// semver_check: refuse compares a release with the version below it of
// providers as trusted or more: an Untrusted provider that registered
// t@1.0.0 first (with a schema the System release "breaks") does not get
// the System provider's t@1.1.0 refused.
func TestUntrustedVersionDoesNotBlockSystemRelease(t *testing.T) {
	r := New()
	if err := r.SetSemverCheck(SemverRefuse, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(trusted("org.u", abi.Untrusted), []abi.ToolDef{withParams("t", "1.0.0", propsAB, "a")}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(trusted("org.sys", abi.System), []abi.ToolDef{withParams("t", "1.1.0", propsA, "a", "b"), tool("other", "1.0.0")}); err != nil {
		t.Fatalf("the System provider is refused because of an Untrusted provider's version: %v", err)
	}
}
