package registry

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestNoMatchNamesShadowedVersions: a call of greet@2.0.0, a version an
// Untrusted plugin registers but a Community provider's greet shadows,
// was told "no version of tool greet matches "2.0.0" (available: 1.0.0)",
// as if no loaded provider offered it. The error now also names the
// shadowed versions the constraint matches, with their providers, and
// why they are not served (Data.shadowed).
func TestNoMatchNamesShadowedVersions(t *testing.T) {
	r := New()
	if err := r.Register(trusted("org.u.greet", abi.Untrusted), []abi.ToolDef{tool("greet", "2.0.0"), tool("greet", "2.1.0"), tool("other", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(trusted("org.c.greet", abi.Community), []abi.ToolDef{tool("greet", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	_, err := r.Resolve("greet", "^2")
	wantCode(t, err, abi.NotFound, `"^2"`, "available: 1.0.0", "greet@2.0.0", "greet@2.1.0", "org.u.greet", "shadowed")
	d, _ := abi.AsToolError(err, abi.Internal).Data.(map[string]any)
	if sh, _ := d["shadowed"].([]string); len(sh) != 2 {
		t.Errorf("data.shadowed = %v, want the two shadowed versions", d["shadowed"])
	}
	// A constraint no shadowed version matches says nothing of them.
	_, err = r.Resolve("greet", "^3")
	wantCode(t, err, abi.NotFound, `"^3"`, "available: 1.0.0")
	if te := abi.AsToolError(err, abi.Internal); strings.Contains(te.Message, "shadowed") {
		t.Errorf("%q speaks of shadowed versions", te.Message)
	}
}
