package registry

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// A System provider serves hello@1.0.0; a Verified one's hello@1.0.0 is
// left out (partial). The System provider is hot reloaded at Untrusted
// (its folder or signature changed): the Verified version is served, not
// the Untrusted one.
func TestReplaceLoweringTrustServesShadowedVersion(t *testing.T) {
	r := New()
	if err := r.Register(trusted("org.sys", abi.System), []abi.ToolDef{tool("hello", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Apply(trusted("org.ver", abi.Verified), []abi.ToolDef{tool("hello", "1.0.0")}, Options{Partial: true}); err != nil {
		t.Fatal(err)
	}
	if got := servedBy(t, r, "hello"); got != "org.sys" {
		t.Fatalf("setup: hello served by %q", got)
	}
	if err := r.Replace(trusted("org.sys", abi.Untrusted), []abi.ToolDef{tool("hello", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	if got := servedBy(t, r, "hello"); got != "org.ver" {
		t.Fatalf("hello served by %q (Untrusted) while org.ver (Verified) has it shadowed: %v", got, r.Shadowed("org.ver"))
	}
}

// The same through Options.Drop: the holder's id changes (adapter.id
// edited) and its trust drops in the same Apply: the shadowed Verified
// version is served, not the newcomer's.
func TestDropSwapDoesNotBeatMoreTrustedShadowed(t *testing.T) {
	r := New()
	if err := r.Register(trusted("org.sys", abi.System), []abi.ToolDef{tool("hello", "1.0.0")}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Apply(trusted("org.ver", abi.Verified), []abi.ToolDef{tool("hello", "1.0.0")}, Options{Partial: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Apply(trusted("org.new", abi.Untrusted), []abi.ToolDef{tool("hello", "1.0.0")}, Options{Drop: "org.sys"}); err != nil {
		t.Fatal(err)
	}
	if got := servedBy(t, r, "hello"); got != "org.ver" {
		t.Fatalf("hello served by %q (Untrusted) while org.ver (Verified) has it shadowed: %v", got, r.Shadowed("org.ver"))
	}
}
