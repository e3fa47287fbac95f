package registry

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// probeInvariants: every shadowed version is unfree (another provider
// serves its version, or a more trusted one serves its name), and no
// served version sits beside a more trusted provider's version of its
// name; plus checkSnapshot.
func probeInvariants(s *snapshot) error {
	if err := checkSnapshot(s); err != nil {
		return err
	}
	for id, ps := range s.providers.all {
		if ps == nil {
			continue
		}
		served := map[*Entry]bool{}
		for _, e := range ps.entries {
			served[e] = true
			if set := s.tools.get(e.Def.Name); set != nil {
				for _, x := range set.versions {
					if x.Provider.Trust > e.Provider.Trust {
						return fmt.Errorf("%s's %s@%s served beside more trusted %s's %s", id, e.Def.Name, e.ver, x.Provider.Info.ID, x.ver)
					}
				}
			}
		}
		for _, e := range ps.all() {
			if served[e] {
				continue
			}
			free := true
			if set := s.tools.get(e.Def.Name); set != nil {
				for _, x := range set.versions {
					if x.Provider.Info.ID != id && (x.Version.Compare(e.Version) == 0 || x.Provider.Trust > e.Provider.Trust) {
						free = false
					}
				}
			}
			if free {
				return fmt.Errorf("%s's %s@%s is shadowed but nothing shadows it", id, e.Def.Name, e.ver)
			}
		}
	}
	return nil
}

// TestShadowIdxDenseModel: few providers, few names, random trust
// changes, partial reloads, Drop (id renames) and removals; after every
// write the snapshot must match a from-scratch build and no shadowed
// version may be free.
func TestShadowIdxDenseModel(t *testing.T) {
	trusts := []abi.TrustLevel{abi.Untrusted, abi.Community, abi.Verified, abi.System}
	vers := []string{"1.0.0", "1.1.0", "2.0.0"}
	for seed := int64(1); seed <= 300*probeMul(); seed++ {
		rng := rand.New(rand.NewSource(seed))
		r := New()
		var log []string
		for step := range 60 {
			id := fmt.Sprintf("org.p%d", rng.Intn(6))
			var err error
			switch k := rng.Intn(10); {
			case k < 2:
				_, err = r.Remove(id)
				log = append(log, "remove "+id)
			default:
				var tools []abi.ToolDef
				seen := map[string]bool{}
				for n := 1 + rng.Intn(4); n > 0; n-- {
					d := tool(fmt.Sprintf("n%d", rng.Intn(3)), vers[rng.Intn(3)])
					if !seen[d.Name+d.Version] {
						seen[d.Name+d.Version] = true
						tools = append(tools, d)
					}
				}
				opt := Options{Replace: true, Partial: rng.Intn(4) > 0}
				if k == 9 {
					// rename: a new id dropping the old one
					opt.Drop = id
					id = fmt.Sprintf("org.p%d", rng.Intn(6))
					if id == opt.Drop {
						opt.Drop = ""
					}
				}
				tr := trusts[rng.Intn(4)]
				_, err = r.Apply(trusted(id, tr), tools, opt)
				log = append(log, fmt.Sprintf("apply %s trust=%v drop=%q partial=%v %v -> %v", id, tr, opt.Drop, opt.Partial, toolsStr(tools), err))
			}
			if e := probeInvariants(r.snap.Load()); e != nil {
				for _, l := range log {
					t.Log(l)
				}
				t.Fatalf("seed %d step %d: %v", seed, step, e)
			}
		}
	}
}

func probeMul() int64 {
	if *modelSeeds > 0 {
		return int64(*modelSeeds)
	}
	return 1
}
