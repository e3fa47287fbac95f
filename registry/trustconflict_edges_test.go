package registry

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestTrustConflictNamesRefusedVersion: a less trusted provider refused
// for adding a version of a more trusted provider's tool was told "tool t
// is registered by provider org.sys (trust System); provider org.un (trust
// Untrusted) may not add versions of it", naming no version: with several
// versions in its file its author could not tell which one was refused
// (only Data had it). The message names the refused name@version.
func TestTrustConflictNamesRefusedVersion(t *testing.T) {
	r := New()
	if err := r.Register(trusted("org.sys", abi.System), []abi.ToolDef{tool("t", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	err := r.Register(trusted("org.un", abi.Untrusted), []abi.ToolDef{tool("t", "1.0.0"), tool("t", "9.0.0+build.7"), tool("u", "1.0.0")})
	wantCode(t, err, abi.Conflict, "t@9.0.0+build.7", "org.sys", "System", "org.un", "Untrusted")
	if n := len(r.Providers()); n != 1 {
		t.Errorf("%d providers after a refused registration, want 1", n)
	}
}
