package registry

import (
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestVersionInNameSaysWhereItGoes: a call of "echo@1.0.0", the version
// written into the name as a package manager takes it, was told only
// "did you mean echo?" (found by p194). It says that a tool's name holds
// no version, and which name and version to give apart.
func TestVersionInNameSaysWhereItGoes(t *testing.T) {
	r := resolveFixture(t)
	_, err := r.Resolve("echo@1.2.0", "")
	te, ok := err.(*abi.ToolError)
	if !ok || te.Code != abi.NotFound || !strings.Contains(te.Message, `call tool "echo" with the version "1.2.0" given apart`) {
		t.Fatalf("echo@1.2.0: %v", err)
	}
	if d, _ := te.Data.(map[string]any); d["name"] != "echo" || d["version"] != "1.2.0" {
		t.Errorf("data %v", te.Data)
	}
	// A name before the @ that no tool has is told as any unknown name.
	if _, err := r.Resolve("ehco@1.2.0", ""); err == nil || strings.Contains(err.Error(), "given apart") {
		t.Errorf("ehco@1.2.0: %v", err)
	}
}
