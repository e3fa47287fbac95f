package host

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// grantsLoader loads a provider asking for caps and records what its
// Source says the provider will hold, as a runtime configuring a sandbox
// would ask.
type grantsLoader struct {
	caps  []string
	trust *abi.TrustLevel
	held  *abi.Grants
}

func (grantsLoader) Runtime() string      { return "grants" }
func (grantsLoader) Extensions() []string { return []string{".grants"} }
func (l grantsLoader) Load(_ context.Context, src abi.Source) (abi.Provider, error) {
	id := "org.test." + strings.TrimSuffix(filepath.Base(src.Path), ".grants")
	requested, err := abi.ParseGrants(l.caps)
	if err != nil {
		return nil, err
	}
	*l.trust, *l.held = src.FinalGrants(id, requested)
	p := native.New(abi.ProviderInfo{ID: id, Capabilities: l.caps})
	p.MustRegister(abi.ToolDef{Name: "t-" + filepath.Base(id), Version: "1.0.0"},
		func(context.Context, any, abi.Env) (any, error) { return nil, nil })
	return p, nil
}

// TestSourceFinalGrants: what a loader learns from Source.FinalGrants is
// exactly what the registry records, with providers.<id>.trust and .grants
// applied — in both directions, and when the folder's trust is the one
// that counts.
func TestSourceFinalGrants(t *testing.T) {
	caps := []string{"Network(*.example.com)", "ReadSpace(docs)", "CallTool(*)"}
	te := newTestHost(t, func(c *config.Config) {
		c.Providers = map[string]config.ProviderOverride{
			"org.test.lowered":  {Trust: "Untrusted"},
			"org.test.raised":   {Trust: "Verified"},
			"org.test.narrowed": {Grants: []string{"CallTool(*)"}},
		}
	})
	var trust abi.TrustLevel
	var held abi.Grants
	if err := te.h.AddLoader(grantsLoader{caps: caps, trust: &trust, held: &held}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file   string
		folder abi.TrustLevel
		want   abi.TrustLevel
		grants []string
	}{
		{"lowered", abi.Verified, abi.Untrusted, []string{"CallTool(*)"}},
		{"raised", abi.Untrusted, abi.Verified, []string{"CallTool(*)", "Network(*.example.com)", "ReadSpace(docs)"}},
		{"narrowed", abi.System, abi.System, []string{"CallTool(*)"}},
		{"plain", abi.Community, abi.Community, []string{"CallTool(*)", "ReadSpace(docs)"}},
	} {
		if _, err := te.h.LoadFile(context.Background(), "/x/"+tc.file+".grants", ProviderMeta{Trust: tc.folder}); err != nil {
			t.Fatal(err)
		}
		rec := te.h.Registry().Provider("org.test." + tc.file)
		if rec == nil {
			t.Fatalf("%s: not registered", tc.file)
		}
		if trust != tc.want || rec.Trust != tc.want {
			t.Errorf("%s: loader saw trust %s, registry %s; want %s", tc.file, trust, rec.Trust, tc.want)
		}
		if got, reg := held.Strings(), rec.Grants.Strings(); !slices.Equal(got, tc.grants) || !slices.Equal(reg, tc.grants) {
			t.Errorf("%s: loader saw grants %v, registry %v; want %v", tc.file, got, reg, tc.grants)
		}
	}
}
