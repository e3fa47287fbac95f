package host

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// TestTrustBoundToSource: providers.<id>.trust with a source applies only
// to the provider of that id loaded from the source (a file, or a folder
// it is in); the same id claimed by a file elsewhere keeps its own level,
// in what the loader is told and in what the registry records. Before
// providers.<id>.source, the level went to whatever file claimed the id.
func TestTrustBoundToSource(t *testing.T) {
	caps := []string{"Network(*.example.com)", "CallTool(*)"}
	te := newTestHost(t, func(c *config.Config) {
		c.Providers = map[string]config.ProviderOverride{
			"org.test.tool": {Trust: "Verified", Source: "/plugins/vendor"},
		}
	})
	var trust abi.TrustLevel
	var held abi.Grants
	if err := te.h.AddLoader(grantsLoader{caps: caps, trust: &trust, held: &held}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want abi.TrustLevel
	}{
		{"/plugins/stray/tool.grants", abi.Untrusted},
		{"/plugins/vendor-evil/tool.grants", abi.Untrusted}, // a name that merely starts the same
		{"/plugins/vendor/tool.grants", abi.Verified},
		{"/plugins/vendor/sub/tool.grants", abi.Verified},
	} {
		if _, err := te.h.LoadFile(context.Background(), tc.path, ProviderMeta{Trust: abi.Untrusted}); err != nil {
			t.Fatal(err)
		}
		rec := te.h.Registry().Provider("org.test.tool")
		if rec == nil {
			t.Fatalf("%s: not registered", tc.path)
		}
		if trust != tc.want || rec.Trust != tc.want {
			t.Errorf("%s: loader saw trust %s, registry %s; want %s", tc.path, trust, rec.Trust, tc.want)
		}
		if tc.want == abi.Untrusted && rec.Grants.Allows(abi.Capability{Kind: abi.CapNetwork, Arg: "a.example.com", HasArg: true}) {
			t.Errorf("%s: holds Network with the override bound elsewhere: %v", tc.path, rec.Grants.Strings())
		}
		if err := te.h.RemoveProvider("org.test.tool"); err != nil {
			t.Fatal(err)
		}
	}
}
