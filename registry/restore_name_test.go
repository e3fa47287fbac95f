package registry

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// A shadowed version comes back only when it is free: no other provider
// serves its version and none more trusted serves its name (tx.free), also
// counting the reloading provider's new tools: a System provider that
// withdraws alpha@1.1.0 and keeps alpha@1.0.0 does not bring back a
// Community provider's alpha@1.1.0 (a probe found it did, also past
// semver_check refuse).
func TestRestoreRespectsReloadersName(t *testing.T) {
	for _, mode := range []SemverCheck{SemverOff, SemverRefuse} {
		r := New()
		r.SetSemverCheck(mode, nil)
		a := tool("alpha", "1.0.0")
		q := tool("alpha", "1.1.0")
		q.Parameters = map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}, "required": []any{"x"}}
		if err := r.Register(trusted("org.q", abi.Community), []abi.ToolDef{q}); err != nil {
			t.Fatal(err)
		}
		if err := r.Register(trusted("org.p", abi.System), []abi.ToolDef{a, tool("alpha", "1.1.0")}); err != nil {
			t.Fatal(err)
		}
		fresh := New()
		fresh.SetSemverCheck(mode, nil)
		_ = fresh.Register(trusted("org.p", abi.System), []abi.ToolDef{a})
		freshErr := fresh.Register(trusted("org.q", abi.Community), []abi.ToolDef{q})
		// org.p withdraws 1.1.0, keeping 1.0.0.
		rep, err := r.Apply(trusted("org.p", abi.System), []abi.ToolDef{a}, Options{Replace: true})
		if err != nil {
			t.Fatalf("%s: reload refused: %v", mode, err)
		}
		for _, e := range r.Versions("alpha") {
			if e.Provider.Info.ID == "org.q" {
				t.Errorf("%s: org.q's Community alpha@1.1.0 came back beside System org.p's alpha (Restored %v); registered now it is refused: %v", mode, rep.Restored, freshErr)
			}
		}
	}
}
