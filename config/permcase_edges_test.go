package config

import "testing"

// TestMaxPermissionAnyCase: max_permission is read in any case, as a trust
// level is (trust: verified and Verified are one): "Critical" was refused
// as "not one of public, low, medium, high, critical" (p192's leftover).
func TestMaxPermissionAnyCase(t *testing.T) {
	cfg, err := Parse([]byte("agents:\n  ops:\n    max_permission: Critical\n  bot:\n    max_permission: LOW\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.AgentMaxPermission("ops"); got != "critical" {
		t.Errorf("ops: %q, want critical", got)
	}
	if got := cfg.AgentMaxPermission("bot"); got != "low" {
		t.Errorf("bot: %q, want low", got)
	}
	if _, err := Parse([]byte("agents:\n  ops:\n    max_permission: Crtical\n"), "c.yaml"); err == nil {
		t.Error("max_permission: Crtical was taken")
	}
}
