package registry

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestTrustCanonical: with every registered provider of a distinct
// trust level (so no same-trust conflicts), the served state must be a
// function of the registered providers' declared tools alone: each name is
// served by exactly the most trusted provider declaring it, all its
// declared versions of that name. Random Register/Replace/Apply(Partial,
// Drop)/Unregister sequences, trust changing on reload.
func TestTrustCanonical(t *testing.T) {
	names := []string{"alpha", "beta"}
	vers := []string{"1.0.0", "1.1.0", "2.0.0"}
	trusts := []abi.TrustLevel{abi.Untrusted, abi.Community, abi.Verified, abi.System}
	runTrustModel(t, func(rng *rand.Rand, r *Registry) (string, abi.TrustLevel, []abi.ToolDef, int, bool) {
		id := fmt.Sprintf("org.p%d", rng.Intn(5))
		tr := trusts[rng.Intn(4)]
		clash := false
		for _, p := range r.Providers() {
			if p.Info.ID != id && p.Trust == tr {
				clash = true
			}
		}
		var tools []abi.ToolDef
		seen := map[string]bool{}
		for k := rng.Intn(4); k > 0; k-- {
			n, v := names[rng.Intn(2)], vers[rng.Intn(3)]
			if !seen[n+v] {
				seen[n+v] = true
				tools = append(tools, tool(n, v))
			}
		}
		op := rng.Intn(5)
		return id, tr, tools, op, op < 4 && clash
	})
}

// runTrustModel runs 400 random sequences of 40 operations (randomOp)
// whose provider, trust, tools and operation gen chooses (skip: none this
// step), and checks after each that the served state is canonical.
func runTrustModel(t *testing.T, gen func(rng *rand.Rand, r *Registry) (id string, tr abi.TrustLevel, tools []abi.ToolDef, op int, skip bool)) {
	t.Helper()
	fails := 0
	for seed := int64(0); seed < 400 && fails < 3; seed++ {
		rng := rand.New(rand.NewSource(seed))
		r := New()
		r.SetSemverCheck(SemverOff, nil)
		var log []string
		for step := 0; step < 40; step++ {
			id, tr, tools, op, skip := gen(rng, r)
			if skip {
				continue
			}
			drop, err := randomOp(r, rng, op, trusted(id, tr), tools, 5)
			if drop != "" {
				log = append(log, "drop "+drop)
			}
			log = append(log, fmt.Sprintf("op%d %s %v [%s] -> %v", op, id, tr, toolsStr(tools), err))
			if msg := canonicalCheck(r); msg != "" {
				fails++
				t.Errorf("seed %d step %d: %s\n  %s", seed, step, msg, strings.Join(log, "\n  "))
				break
			}
		}
	}
}

// TestTrustCanonicalSharedTrust: as TestTrustCanonical, with
// providers sharing trust levels but never a version (each provider's
// versions are its own), so the served state is still a function of the
// declared tools: each name served by every version of the providers of
// the top trust declaring it.
func TestTrustCanonicalSharedTrust(t *testing.T) {
	names := []string{"alpha", "beta"}
	trusts := []abi.TrustLevel{abi.Untrusted, abi.Community, abi.Verified, abi.System}
	runTrustModel(t, func(rng *rand.Rand, r *Registry) (string, abi.TrustLevel, []abi.ToolDef, int, bool) {
		pi := rng.Intn(5)
		tr := trusts[rng.Intn(3)]
		var tools []abi.ToolDef
		seen := map[string]bool{}
		for k := rng.Intn(4); k > 0; k-- {
			n, v := names[rng.Intn(2)], fmt.Sprintf("%d.%d.0", 1+rng.Intn(2), pi)
			if !seen[n+v] {
				seen[n+v] = true
				tools = append(tools, tool(n, v))
			}
		}
		return fmt.Sprintf("org.p%d", pi), tr, tools, rng.Intn(5), false
	})
}

// canonicalCheck reports how the served state differs from the canonical
// one: each name served by every version of the providers of the top
// trust declaring it.
func canonicalCheck(r *Registry) string {
	top := map[string]abi.TrustLevel{}
	for _, p := range r.Providers() {
		for _, e := range append(append([]*Entry{}, r.ProviderTools(p.Info.ID)...), r.Shadowed(p.Info.ID)...) {
			if cur, ok := top[e.Def.Name]; !ok || cur < p.Trust {
				top[e.Def.Name] = p.Trust
			}
		}
	}
	want := map[string]bool{}
	for _, p := range r.Providers() {
		for _, e := range append(append([]*Entry{}, r.ProviderTools(p.Info.ID)...), r.Shadowed(p.Info.ID)...) {
			if top[e.Def.Name] == p.Trust {
				want[e.Def.Name+"@"+e.ver+"/"+p.Info.ID] = true
			}
		}
	}
	got := map[string]bool{}
	for _, e := range r.Tools() {
		got[e.Def.Name+"@"+e.ver+"/"+e.Provider.Info.ID] = true
	}
	ks := func(m map[string]bool) string {
		var s []string
		for k := range m {
			s = append(s, k)
		}
		sort.Strings(s)
		return strings.Join(s, " ")
	}
	if ks(want) != ks(got) {
		return "served " + ks(got) + "\n  want " + ks(want)
	}
	return ""
}
