package host

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestGrantCacheKeepsNoRemovedProvider: a call of a provider in flight
// when the provider is removed (or reloaded) that makes a nested call
// afterwards put the nested grants of the removed record into the cache
// after forget had cleared it: the entry, which holds the record and so
// the closed provider's whole implementation, stayed until 1,024 entries
// cleared the cache, one more with every such reload. The call still gets
// its grants; the removed record is not cached.
func TestGrantCacheKeepsNoRemovedProvider(t *testing.T) {
	te := newTestHost(t, nil)
	started, release := make(chan struct{}), make(chan struct{})
	p := native.New(abi.ProviderInfo{ID: "org.probe.slowrelay", Capabilities: []string{"CallTool(*)"}})
	p.MustRegister(abi.ToolDef{Name: "slow-relay", Version: "1.0.0"},
		func(ctx context.Context, _ any, env abi.Env) (any, error) {
			close(started)
			<-release
			return env.CallTool(ctx, "echo", "", map[string]any{"msg": "after removal"})
		})
	addSystem(t, te, p)
	old := te.h.reg.Provider("org.probe.slowrelay")
	// A provider still registered has its nested grants cached.
	if _, err := te.call("alice", "nested", map[string]any{"tool": "echo", "params": map[string]any{"msg": "x"}}); err != nil {
		t.Fatal(err)
	}
	cached := false
	for k := range *te.h.grants.m.Load() {
		cached = cached || k.prov == te.h.reg.Provider("org.test.tools")
	}
	if !cached {
		t.Fatal("the nested grants of a registered provider were not cached")
	}
	done := make(chan error, 1)
	go func() {
		_, err := te.call("alice", "slow-relay", nil)
		done <- err
	}()
	<-started
	if err := te.h.RemoveProvider("org.probe.slowrelay"); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("nested call of a removed provider's call in flight: %v", err)
	}
	if m := te.h.grants.m.Load(); m != nil {
		for k := range *m {
			if k.prov == old {
				t.Fatalf("the grant cache holds the record of removed provider %s", old.Info.ID)
			}
		}
	}
}
