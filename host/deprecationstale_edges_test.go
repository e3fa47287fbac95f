package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestDeprecationRecordsGoWithTheirVersions: the host remembers, per
// provider and tool version, which deprecated definition it warned about;
// RemoveProvider forgot a provider's records, but a hot reload that
// withdrew a deprecated version (1.0.0 replaced by 2.0.0) and a reload
// that swapped the provider for a new id (a renamed provider id) kept the
// gone versions' records for the host's life, one more per reload. A
// record goes with its version, whichever way the version goes.
func TestDeprecationRecordsGoWithTheirVersions(t *testing.T) {
	cfg := config.Default()
	cfg.Data = t.TempDir()
	cfg.Agents = map[string]config.Agent{"alice": {Grants: []string{"CallTool(*)"}}}
	h, err := New(Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	prov := func(id, version string) *native.Provider {
		p := native.New(abi.ProviderInfo{ID: id})
		p.MustRegister(abi.ToolDef{Name: "old", Version: version, Deprecation: &abi.Deprecation{Message: "use new"}},
			func(context.Context, any, abi.Env) (any, error) { return "ok", nil })
		return p
	}
	call := func() {
		t.Helper()
		if _, err := h.Call(context.Background(), &abi.ToolCall{Caller: "alice", Tool: "old", Params: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
	}
	records := func() []string {
		var ks []string
		h.warned.Range(func(k, _ any) bool {
			ks = append(ks, strings.ReplaceAll(k.(string), "\x00", " "))
			return true
		})
		return ks
	}
	meta := ProviderMeta{Source: "test", Trust: abi.System}
	if err := h.AddProvider(context.Background(), prov("org.test.dep", "1.0.0"), meta); err != nil {
		t.Fatal(err)
	}
	call()
	for i, v := range []string{"2.0.0", "3.0.0"} {
		if err := h.ReplaceProvider(context.Background(), prov("org.test.dep", v), meta); err != nil {
			t.Fatal(err)
		}
		call()
		if ks := records(); len(ks) != 1 || ks[0] != "org.test.dep old@"+v {
			t.Fatalf("after reload %d to %s the host remembers %q, want only the served version's", i+1, v, ks)
		}
	}
	swap := meta
	swap.Replaces = "org.test.dep"
	if err := h.ReplaceProvider(context.Background(), prov("org.test.renamed", "3.0.0"), swap); err != nil {
		t.Fatal(err)
	}
	if ks := records(); len(ks) != 0 {
		t.Fatalf("after the provider was swapped for a new id the host remembers %q", ks)
	}
	call()
	if ks := records(); len(ks) != 1 || ks[0] != "org.test.renamed old@3.0.0" {
		t.Fatalf("the host remembers %q, want the renamed provider's version", ks)
	}
}
