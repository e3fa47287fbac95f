package python_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/python"
	"github.com/aios-host/aios-host/space"
)

// newHostWith is newHost with the config changed by edit first.
func newHostWith(t *testing.T, rt *python.Runtime, edit func(*config.Config)) *host.Host {
	t.Helper()
	cfg := testConfig(t)
	edit(cfg)
	st, err := space.Open(filepath.Join(cfg.Data, "spaces"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Options{Config: cfg, Spaces: st, Loaders: []abi.Loader{rt}, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h
}

// TestSandboxFollowsProviderTrustOverride: a worker's network access
// follows the grants the registry shows, i.e. after providers.<id>.trust
// (and .grants), not the trust of the file's folder. Both directions: a
// Verified file lowered to Untrusted gets no network; an Untrusted file
// raised to Verified gets its Network(host) pattern, brokered.
func TestSandboxFollowsProviderTrustOverride(t *testing.T) {
	rt := newRuntime(t, nil)
	port, _ := listener(t)
	prober := func(id, caps string) string {
		return strings.Replace(proberSource(caps), `id="org.test.sandbox"`, `id="`+id+`"`, 1)
	}
	registered := func(h *host.Host, id string) []string {
		t.Helper()
		rec := h.Registry().Provider(id)
		if rec == nil {
			t.Fatalf("provider %s is not registered", id)
		}
		return rec.Grants.Strings()
	}

	t.Run("lowered", func(t *testing.T) {
		h := newHostWith(t, rt, func(c *config.Config) {
			c.Providers = map[string]config.ProviderOverride{"org.test.lowered": {Trust: "Untrusted"}}
		})
		path := writeTool(t, "lowered.py", prober("org.test.lowered", `[Capability.Network("*")]`))
		p, err := h.LoadFile(context.Background(), path, host.ProviderMeta{Trust: abi.Verified})
		if err != nil {
			t.Fatal(err)
		}
		if g := registered(h, "org.test.lowered"); len(g) != 0 {
			t.Fatalf("registry grants %v, want none", g)
		}
		pp := p.(*python.Provider)
		if pp.Network() || len(pp.NetworkHosts()) != 0 {
			t.Fatalf("providers.<id>.trust: Untrusted, yet the workers have network (Network() %v, hosts %v)", pp.Network(), pp.NetworkHosts())
		}
		if pp.Layers().Seccomp || pp.Layers().NetNS {
			r, err := call(h, "raw-socket", map[string]any{"host": "127.0.0.1", "port": int64(port)}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if m := r.(map[string]any); m["ok"] != false {
				t.Fatalf("a provider lowered to Untrusted opened a socket: %v", m)
			}
		}
	})

	t.Run("raised", func(t *testing.T) {
		h := newHostWith(t, rt, func(c *config.Config) {
			c.Providers = map[string]config.ProviderOverride{"org.test.raised": {Trust: "Verified"}}
			// The caller's grants count too (TestNetworkCallerIntersected).
			a := c.Agents["tester"]
			a.Grants = append(a.Grants, "Network(127.0.0.1)")
			c.Agents["tester"] = a
		})
		path := writeTool(t, "raised.py", prober("org.test.raised", `[Capability.Network("127.0.0.1")]`))
		p, err := h.LoadFile(context.Background(), path, host.ProviderMeta{Trust: abi.Untrusted})
		if err != nil {
			t.Fatal(err)
		}
		if g := registered(h, "org.test.raised"); !reflect.DeepEqual(g, []string{"Network(127.0.0.1)"}) {
			t.Fatalf("registry grants %v, want [Network(127.0.0.1)]", g)
		}
		pp := p.(*python.Provider)
		if pp.Network() || !reflect.DeepEqual(pp.NetworkHosts(), []string{"127.0.0.1"}) {
			t.Fatalf("providers.<id>.trust: Verified with Network(127.0.0.1): Network() %v, hosts %v; want the brokered pattern", pp.Network(), pp.NetworkHosts())
		}
		r, err := call(h, "connect", map[string]any{"port": int64(port)}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if m := r.(map[string]any); m["ok"] != true {
			t.Fatalf("a provider raised to Verified could not connect through the host: %v", m)
		}
	})

	// providers.<id>.grants narrows too: Verified, but grants without
	// Network, gives no network.
	t.Run("grants", func(t *testing.T) {
		h := newHostWith(t, rt, func(c *config.Config) {
			c.Providers = map[string]config.ProviderOverride{"org.test.narrowed": {Grants: []string{"CallTool(*)"}}}
		})
		path := writeTool(t, "narrowed.py", prober("org.test.narrowed", `[Capability.Network("*")]`))
		p, err := h.LoadFile(context.Background(), path, host.ProviderMeta{Trust: abi.Verified})
		if err != nil {
			t.Fatal(err)
		}
		if g := registered(h, "org.test.narrowed"); len(g) != 0 {
			t.Fatalf("registry grants %v, want none", g)
		}
		if pp := p.(*python.Provider); pp.Network() || len(pp.NetworkHosts()) != 0 {
			t.Fatalf("providers.<id>.grants without Network, yet the workers have network (Network() %v, hosts %v)", pp.Network(), pp.NetworkHosts())
		}
	})
}
