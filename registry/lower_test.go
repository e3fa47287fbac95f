package registry

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// A Community provider serving alpha@1.0.0 beside a Verified provider's
// alpha@2.0.0 (it loaded first) reloads at Untrusted with the very same
// tool (its signature went): the reload is registered with that version
// left out (a probe found it refused, the provider left at Community).
func TestTrustLoweringReloadLeavesOut(t *testing.T) {
	r := New()
	r.SetSemverCheck(SemverOff, nil)
	if err := r.Register(trusted("org.lo", abi.Community), []abi.ToolDef{tool("alpha", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(trusted("org.hi", abi.Verified), []abi.ToolDef{tool("alpha", "2.0.0")}); err != nil {
		t.Fatal(err)
	}
	err := r.Replace(trusted("org.lo", abi.Untrusted), []abi.ToolDef{tool("alpha", "1.0.0")})
	if got := r.Provider("org.lo").Trust; err != nil || got != abi.Untrusted {
		t.Fatalf("trust-lowering reload: err %v; org.lo still registered at %v", err, got)
	}
}
