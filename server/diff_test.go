package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/registry"
	"github.com/aios-host/aios-host/runtimes/native"
)

// greetProvider offers greet@version, whose parameters require required.
func greetProvider(id, version string, required ...any) *native.Provider {
	p := native.New(abi.ProviderInfo{ID: id, Version: "1.0.0"})
	p.MustRegister(abi.ToolDef{Name: "greet", Version: version, Parameters: map[string]any{"type": "object",
		"properties": map[string]any{"name": map[string]any{"type": "string"}, "lang": map[string]any{"type": "string"}},
		"required":   required}},
		func(context.Context, any, abi.Env) (any, error) { return "hi", nil })
	return p
}

// TestRegistryDiffMethod: aios/registry.diff answers the changes between
// two versions (defaults: the newest and the one below it), with clear
// errors; tools/list and aios/registry.info report registered_at and the
// SemVer violation of a version that broke callers.
func TestRegistryDiffMethod(t *testing.T) {
	before := time.Now().UTC().Add(-time.Second)
	ts := newTestServer(t, "", false)
	ctx := context.Background()
	for _, p := range []*native.Provider{greetProvider("org.a.greet", "1.0.0", "name"), greetProvider("org.b.greet", "1.1.0", "name", "lang"),
		greetProvider("org.c.greet", "2.0.0")} {
		if err := ts.h.AddProvider(ctx, p, host.ProviderMeta{Trust: abi.Community}); err != nil {
			t.Fatal(err)
		}
	}
	c := dial(t, ts)
	var d registry.ToolDiff
	if err := c.Call(ctx, "aios/registry.diff", map[string]any{"tool": "greet"}, &d); err != nil {
		t.Fatal(err)
	}
	if d.Tool != "greet" || d.From != "1.1.0" || d.To != "2.0.0" || d.Breaking || len(d.Changes) != 2 {
		t.Fatalf("default diff: %+v", d)
	}
	if err := c.Call(ctx, "aios/registry.diff", map[string]any{"tool": "greet", "to": "1.1.0"}, &d); err != nil {
		t.Fatal(err)
	}
	if d.From != "1.0.0" || d.To != "1.1.0" || !d.Breaking || len(d.Changes) != 1 ||
		d.Changes[0].Path != "/parameters/properties/lang" || d.Changes[0].Kind != "required-added" || !d.Changes[0].Breaking {
		t.Fatalf("1.0.0 → 1.1.0: %+v", d)
	}
	if err := c.Call(ctx, "aios/registry.diff", map[string]any{"tool": "greet", "from": "1.0.0", "to": "2.0.0"}, &d); err != nil {
		t.Fatal(err)
	}
	if d.From != "1.0.0" || d.To != "2.0.0" || d.Breaking {
		t.Fatalf("1.0.0 → 2.0.0: %+v", d)
	}
	for _, bad := range []struct {
		params map[string]any
		code   int
		ac     abi.ErrorCode
		words  string
	}{
		{map[string]any{}, -32602, abi.InvalidParams, "tool is required"},
		{map[string]any{"tool": "greeet"}, -32001, abi.NotFound, "greet"},
		{map[string]any{"tool": "greet", "to": "9.0.0"}, -32001, abi.NotFound, "no version 9.0.0 (available: 1.0.0, 1.1.0, 2.0.0)"},
		{map[string]any{"tool": "greet", "from": "^1"}, -32602, abi.InvalidParams, `from version "^1"`},
		{map[string]any{"tool": "greet", "to": "1.0.0"}, -32001, abi.NotFound, "no version below 1.0.0"},
		{map[string]any{"tool": "greet", "version": "1.0.0"}, -32602, abi.InvalidParams, "unknown field"},
	} {
		err := c.Call(ctx, "aios/registry.diff", bad.params, nil)
		if code, ac := rpcCode(err); code != bad.code || ac != bad.ac || !strings.Contains(err.Error(), bad.words) {
			t.Errorf("diff %v: %v (code %d %s), want %d %s saying %q", bad.params, err, code, ac, bad.code, bad.ac, bad.words)
		}
	}

	var list struct{ Tools []ToolInfo }
	if err := c.Call(ctx, "tools/list", map[string]any{"all_versions": true}, &list); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, ti := range list.Tools {
		if ti.RegisteredAt.Before(before) || ti.RegisteredAt.After(time.Now().Add(time.Second)) {
			t.Errorf("tools/list %s@%s registered_at %v", ti.Name, ti.Version, ti.RegisteredAt)
		}
		if ti.Name == "greet" {
			seen++
			if (ti.Version == "1.1.0") != (ti.SemverViolation != nil) {
				t.Errorf("greet@%s semver_violation %+v", ti.Version, ti.SemverViolation)
			}
		}
	}
	if seen != 3 {
		t.Fatalf("tools/list: %d versions of greet", seen)
	}
	var info struct{ Skills []InfoSkill }
	if err := c.Call(ctx, "aios/registry.info", map[string]any{"adapter_id": "org.b.greet"}, &info); err != nil {
		t.Fatal(err)
	}
	if len(info.Skills) != 1 || info.Skills[0].RegisteredAt.IsZero() || info.Skills[0].SemverViolation == nil ||
		info.Skills[0].SemverViolation.Previous != "1.0.0" || info.Skills[0].ID != "greet" {
		t.Fatalf("info skills: %+v", info.Skills)
	}
}

// TestToolsChangedCarriesViolation: an added tool version that broke SemVer
// carries its violation in the tools_changed notification.
func TestToolsChangedCarriesViolation(t *testing.T) {
	v := registry.SemverViolation{Tool: "greet", Version: "1.1.0", Provider: "org.b", Previous: "1.0.0", PreviousProvider: "org.a"}
	ev := registry.Event{Added: []registry.ToolRef{{Name: "greet", Version: "1.1.0", ProviderID: "org.b"}, {Name: "other", Version: "1.0.0", ProviderID: "org.b"}},
		Provider: &registry.ProviderChange{ID: "org.b", Action: "added"}, Violations: []registry.SemverViolation{v}}
	tc := changeParams(ev, map[string]bool{"added": true}, "sub-1")
	if tc == nil || len(tc.Added) != 1 || len(tc.Added[0].Tools) != 2 {
		t.Fatalf("notification: %+v", tc)
	}
	tools := tc.Added[0].Tools
	if tools[0].SemverViolation == nil || tools[0].SemverViolation.Previous != "1.0.0" || tools[1].SemverViolation != nil {
		t.Fatalf("tools: %+v", tools)
	}
}
