package registry

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestBuildMetadataConflictNamesBothVersions: dv@1.0.0+b refused because
// another provider registered dv@1.0.0+a was told it "conflicts with the
// same tool version", naming only 1.0.0+b, and a provider registering
// both in one registration was told it "registers tool dv@1.0.0 twice",
// a version it never wrote: neither said which version it clashed with
// nor that build metadata does not make another version
// (docs/registry.md). Both now name the two versions as given and say so;
// the Conflict's data has the version registered as registered_version.
func TestBuildMetadataConflictNamesBothVersions(t *testing.T) {
	r := New()
	if err := r.Register(prov("org.x.a"), []abi.ToolDef{tool("dv", "1.0.0+a")}); err != nil {
		t.Fatal(err)
	}
	err := r.Register(prov("org.x.b"), []abi.ToolDef{tool("dv", "1.0.0+b")})
	wantCode(t, err, abi.Conflict, "dv@1.0.0+b", "dv@1.0.0+a", "org.x.a", "build metadata")
	if d, _ := abi.AsToolError(err, abi.Internal).Data.(map[string]any); d["registered_version"] != "1.0.0+a" {
		t.Errorf("data %v has no registered_version 1.0.0+a", d)
	}
	// The very same version string: no word about build metadata.
	err = r.Register(prov("org.x.c"), []abi.ToolDef{tool("dv", "1.0.0+a")})
	wantCode(t, err, abi.Conflict, "dv@1.0.0+a", "org.x.a")
	if te := abi.AsToolError(err, abi.Internal); strings.Contains(te.Message, "build metadata") {
		t.Errorf("same version string, message %q speaks of build metadata", te.Message)
	}

	err = r.Register(prov("org.x.d"), []abi.ToolDef{tool("ev", "1.0.0+a"), tool("ev", "1.0.0+b")})
	wantCode(t, err, abi.InvalidRequest, "org.x.d", "ev@1.0.0+a", "ev@1.0.0+b", "build metadata")
	err = r.Register(prov("org.x.d"), []abi.ToolDef{tool("ev", "1.0.0"), tool("ev", "1.0.0")})
	wantCode(t, err, abi.InvalidRequest, "org.x.d", "ev@1.0.0 twice")
}
