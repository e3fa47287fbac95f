package server

import (
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/registry"
)

// TestToolsChangedViolationOfInsertedVersion: a version registered below
// another provider's release of the same major (t@1.1.0 between 1.0.0 and
// 1.2.0) that 1.2.0 breaks carries the violation ("t@1.2.0 breaks callers
// of t@1.1.0"), and tools/list, aios/registry.info and aios-host list
// report it on 1.1.0; the tools_changed notification matched violations
// to its tools by the violating version only (1.2.0, not in the change),
// so the added 1.1.0 came without it. The notification's tool carries the
// violation its entry carries.
func TestToolsChangedViolationOfInsertedVersion(t *testing.T) {
	r := registry.New()
	if err := r.SetSemverCheck(registry.SemverWarn, nil); err != nil {
		t.Fatal(err)
	}
	def := func(version string, types any) abi.ToolDef {
		return abi.ToolDef{Name: "t", Version: version, Parameters: map[string]any{"type": "object",
			"properties": map[string]any{"a": map[string]any{"type": types}}}}
	}
	prov := func(id string) *registry.ProviderRecord {
		return &registry.ProviderRecord{Info: abi.ProviderInfo{ID: id, Runtime: abi.RuntimeNative}, Trust: abi.Community}
	}
	if err := r.Register(prov("org.a"), []abi.ToolDef{def("1.0.0", "string")}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(prov("org.b"), []abi.ToolDef{def("1.2.0", "string")}); err != nil {
		t.Fatal(err)
	}
	ch, cancel := r.Subscribe(4)
	defer cancel()
	if err := r.Register(prov("org.c"), []abi.ToolDef{def("1.1.0", []any{"string", "integer"})}); err != nil {
		t.Fatal(err)
	}
	var carried *registry.SemverViolation
	for _, e := range r.Versions("t") {
		if e.Def.Version == "1.1.0" {
			carried = e.Violation
		}
	}
	if carried == nil || carried.Version != "1.2.0" || carried.Previous != "1.1.0" {
		t.Fatalf("t@1.1.0 carries %+v, want the violation of 1.2.0 breaking its callers", carried)
	}
	tc := changeParams(<-ch, map[string]bool{"added": true}, "sub-1")
	if tc == nil || len(tc.Added) != 1 || len(tc.Added[0].Tools) != 1 {
		t.Fatalf("notification: %+v", tc)
	}
	got := tc.Added[0].Tools[0]
	if got.Version != "1.1.0" || got.SemverViolation == nil || got.SemverViolation.Version != "1.2.0" || got.SemverViolation.Previous != "1.1.0" {
		t.Fatalf("notification tool %+v (violation %+v), want 1.1.0 with the violation its entry carries", got, got.SemverViolation)
	}
}

// TestToolsChangedViolationWithinOneRegistration: a provider registering
// t@1.1.0 and t@1.2.0 together, 1.2.0 breaking callers of 1.1.0: the
// notification gave the violation to both added tools (to 1.1.0 as if it
// were inserted below an existing 1.2.0), where tools/list has it on 1.2.0
// only. The notification's tools carry what their entries carry.
func TestToolsChangedViolationWithinOneRegistration(t *testing.T) {
	r := registry.New()
	if err := r.SetSemverCheck(registry.SemverWarn, nil); err != nil {
		t.Fatal(err)
	}
	def := func(version string, types any) abi.ToolDef {
		return abi.ToolDef{Name: "t", Version: version, Parameters: map[string]any{"type": "object",
			"properties": map[string]any{"a": map[string]any{"type": types}}}}
	}
	ch, cancel := r.Subscribe(4)
	defer cancel()
	rec := &registry.ProviderRecord{Info: abi.ProviderInfo{ID: "org.a", Runtime: abi.RuntimeNative}, Trust: abi.Community}
	if err := r.Register(rec, []abi.ToolDef{def("1.1.0", []any{"string", "integer"}), def("1.2.0", "string")}); err != nil {
		t.Fatal(err)
	}
	carried := map[string]*registry.SemverViolation{}
	for _, e := range r.Versions("t") {
		carried[e.Def.Version] = e.Violation
	}
	tc := changeParams(<-ch, map[string]bool{"added": true}, "sub-1")
	if tc == nil || len(tc.Added) != 1 || len(tc.Added[0].Tools) != 2 {
		t.Fatalf("notification: %+v", tc)
	}
	for _, got := range tc.Added[0].Tools {
		if (got.SemverViolation == nil) != (carried[got.Version] == nil) {
			t.Errorf("notification tool %s carries %+v; its entry carries %+v", got.Version, got.SemverViolation, carried[got.Version])
		}
	}
	if carried["1.2.0"] == nil {
		t.Errorf("t@1.2.0 carries no violation")
	}
}
