package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/server/jsonrpc"
)

// TestInfoToolNameNamesDefaultsAdapter: aios/registry.info given a tool's
// name that several adapters serve (greet 1.0.0 from org.test.aaa, 2.0.0
// from org.test.zzz) answered "greet is a tool of adapter org.test.aaa",
// the first by id, whose version no call without a version reaches. It
// names the adapter serving greet's default version, the one tools/list
// shows and an unconstrained call reaches.
func TestInfoToolNameNamesDefaultsAdapter(t *testing.T) {
	ts := newTestServer(t, "", false)
	ctx := context.Background()
	for id, version := range map[string]string{"org.test.aaa": "1.0.0", "org.test.zzz": "2.0.0"} {
		if err := ts.h.AddProvider(ctx, greetProvider(id, version), host.ProviderMeta{Trust: abi.Community}); err != nil {
			t.Fatal(err)
		}
	}
	def, err := ts.h.Registry().Resolve("greet", "")
	if err != nil || def.Provider.Info.ID != "org.test.zzz" {
		t.Fatalf("greet's default: %v, %v; want org.test.zzz's", def, err)
	}
	c := dial(t, ts)
	err = c.Call(ctx, "aios/registry.info", map[string]any{"adapter_id": "greet"}, nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("info greet: %v, want a JSON-RPC error", err)
	}
	if !strings.Contains(je.Message, `is a tool of adapter "org.test.zzz"`) {
		t.Errorf("info greet: %q, want the adapter serving greet's default, org.test.zzz", je.Message)
	}
}

// TestInfoNamesShadowedSkills: aios/registry.info listed an adapter's
// served skills only: a tool version it registers that a more trusted
// provider's shadows (the same greet@1.0.0 from a System provider) was
// nowhere, as if the adapter did not offer it (found by p174). info lists
// it under shadowed_skills, naming the provider that shadows it.
func TestInfoNamesShadowedSkills(t *testing.T) {
	ts := newTestServer(t, "", false)
	ctx := context.Background()
	low := greetProvider("org.test.low", "1.0.0")
	low.MustRegister(abi.ToolDef{Name: "other", Version: "1.0.0"}, func(context.Context, any, abi.Env) (any, error) { return 1, nil })
	if err := ts.h.AddProvider(ctx, low, host.ProviderMeta{Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	if err := ts.h.AddProvider(ctx, greetProvider("org.test.high", "1.0.0"), host.ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	c := dial(t, ts)
	var res struct {
		Skills []struct {
			ID string `json:"id"`
		} `json:"skills"`
		Shadowed []ShadowedSkill `json:"shadowed_skills"`
	}
	if err := c.Call(ctx, "aios/registry.info", map[string]any{"adapter_id": "org.test.low"}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Skills) != 1 || res.Skills[0].ID != "other" {
		t.Errorf("skills = %+v, want other alone (greet is shadowed)", res.Skills)
	}
	want := []ShadowedSkill{{ID: "greet", Version: "1.0.0", ShadowedBy: "org.test.high"}}
	if fmt.Sprint(res.Shadowed) != fmt.Sprint(want) {
		t.Errorf("shadowed_skills = %+v, want %+v", res.Shadowed, want)
	}
	// The provider serving it has none.
	var high map[string]any
	if err := c.Call(ctx, "aios/registry.info", map[string]any{"adapter_id": "org.test.high"}, &high); err != nil {
		t.Fatal(err)
	}
	if _, ok := high["shadowed_skills"]; ok {
		t.Errorf("org.test.high: shadowed_skills %v, want none", high["shadowed_skills"])
	}
}
