package server

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestInfoShadowedSkillsInSemverOrder: aios/registry.info's
// shadowed_skills are by tool, then version in SemVer order, as Shadowed
// and tools/list order versions (sorted as strings, 1.10.0 came before
// 1.9.0 and 10.0.0 before 2.0.0).
func TestInfoShadowedSkillsInSemverOrder(t *testing.T) {
	ts := newTestServer(t, "", false)
	ctx := context.Background()
	low := native.New(abi.ProviderInfo{ID: "org.test.low", Name: "low", Version: "1.0.0"})
	for _, v := range []string{"1.9.0", "1.10.0", "2.0.0", "10.0.0"} {
		low.MustRegister(abi.ToolDef{Name: "greet", Version: v}, func(context.Context, any, abi.Env) (any, error) { return 1, nil })
	}
	if err := ts.h.AddProvider(ctx, low, host.ProviderMeta{Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	if err := ts.h.AddProvider(ctx, greetProvider("org.test.high", "1.0.0"), host.ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	c := dial(t, ts)
	var res struct {
		Shadowed []ShadowedSkill `json:"shadowed_skills"`
	}
	if err := c.Call(ctx, "aios/registry.info", map[string]any{"adapter_id": "org.test.low"}, &res); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sk := range res.Shadowed {
		got = append(got, sk.Version)
	}
	want := []string{"1.9.0", "1.10.0", "2.0.0", "10.0.0"}
	if len(got) != len(want) {
		t.Fatalf("shadowed versions %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("shadowed versions %v, want %v (SemVer order)", got, want)
		}
	}
}
