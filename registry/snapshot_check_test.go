package registry

import (
	"flag"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// modelSeeds overrides the number of random sequences TestRegistryModel
// and TestRegistryModelReport run: go test ./registry/ -run Model -args -model.seeds=5000
var modelSeeds = flag.Int("model.seeds", 0, "random sequences of the registry model tests (0: their defaults)")

func seeds(def int) int64 {
	if *modelSeeds > 0 {
		return int64(*modelSeeds)
	}
	return int64(def)
}

// checkSnapshot compares the snapshot a write patched (overlays, chunked
// lists) with one built from scratch out of its providers' states.
func checkSnapshot(s *snapshot) error {
	provs := map[string]*provState{}
	for id, ps := range s.providers.all {
		if _, dup := provs[id]; dup {
			return fmt.Errorf("provider %s listed twice", id)
		}
		provs[id] = ps
	}
	if s.providers.len() != len(provs) {
		return fmt.Errorf("providers.len() = %d, %d listed", s.providers.len(), len(provs))
	}
	var recs []*ProviderRecord
	var all []*Entry
	shadowIdx := map[string]map[string]bool{}
	for id, ps := range provs {
		if s.providers.get(id) != ps {
			return fmt.Errorf("providers.get(%s) differs from the listing", id)
		}
		recs = append(recs, ps.rec)
		all = append(all, ps.entries...)
		for n := range shadowedNames(ps) {
			if shadowIdx[n] == nil {
				shadowIdx[n] = map[string]bool{}
			}
			shadowIdx[n][id] = true
		}
	}
	slices.SortFunc(recs, func(a, b *ProviderRecord) int { return strings.Compare(a.Info.ID, b.Info.ID) })
	slices.SortFunc(all, compareEntries)
	if !slices.Equal(s.provs.slice(), recs) {
		return fmt.Errorf("provs differ from the providers' records")
	}
	if !slices.Equal(s.all.slice(), all) {
		return fmt.Errorf("all differs from the providers' entries")
	}
	for _, q := range []struct {
		name   string
		chunks int
		lens   func(int) int
		n      int
	}{
		{"provs", len(s.provs.chunks), func(i int) int { return len(s.provs.chunks[i]) }, s.provs.n},
		{"all", len(s.all.chunks), func(i int) int { return len(s.all.chunks[i]) }, s.all.n},
		{"sets", len(s.sets.chunks), func(i int) int { return len(s.sets.chunks[i]) }, s.sets.n},
	} {
		total := 0
		for i := range q.chunks {
			if l := q.lens(i); l == 0 || l > maxChunk {
				return fmt.Errorf("%s chunk %d has %d elements", q.name, i, l)
			}
			total += q.lens(i)
		}
		if total != q.n {
			return fmt.Errorf("%s.n = %d, chunks hold %d", q.name, q.n, total)
		}
	}
	var sets []*toolSet
	var sigs []sig
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].Def.Name == all[i].Def.Name {
			j++
		}
		name := all[i].Def.Name
		set := s.tools.get(name)
		if set == nil || !slices.Equal(set.versions, all[i:j]) || set.def != defaultOf(all[i:j]) {
			return fmt.Errorf("tools[%s] differs from the served versions", name)
		}
		var u sig
		for _, e := range all[i:j] {
			for w := range u {
				u[w] |= e.sig[w]
			}
		}
		sets, sigs = append(sets, set), append(sigs, u)
		i = j
	}
	if !slices.Equal(s.sets.slice(), sets) || !slices.Equal(s.setSigs.slice(), sigs) {
		return fmt.Errorf("sets or setSigs differ from the served names")
	}
	if len(s.sets.chunks) != len(s.setSigs.chunks) {
		return fmt.Errorf("%d chunks of sets, %d of setSigs", len(s.sets.chunks), len(s.setSigs.chunks))
	}
	for c := range s.sets.chunks {
		if len(s.sets.chunks[c]) != len(s.setSigs.chunks[c]) {
			return fmt.Errorf("chunk %d: %d sets, %d setSigs", c, len(s.sets.chunks[c]), len(s.setSigs.chunks[c]))
		}
	}
	n := 0
	for name, set := range s.tools.all {
		n++
		if set == nil || len(set.versions) == 0 || set.versions[0].Def.Name != name {
			return fmt.Errorf("tools lists %s with another set", name)
		}
	}
	if n != len(sets) || s.tools.len() != n {
		return fmt.Errorf("tools lists %d names (len %d), %d served", n, s.tools.len(), len(sets))
	}
	if s.shadowIdx.len() != len(shadowIdx) {
		return fmt.Errorf("shadowIdx has %d names, %d have shadowed versions", s.shadowIdx.len(), len(shadowIdx))
	}
	for n, want := range shadowIdx {
		got := s.shadowIdx.get(n)
		if got == nil || !maps.Equal(*got, want) {
			return fmt.Errorf("shadowIdx[%s] = %v, want %v", n, got, want)
		}
	}
	return nil
}

// TestRegistryScaleModel runs random registrations, reloads and removals
// of up to 300 providers holding up to 20 of 600 names (so that the
// overlays fold and the chunks split and merge) and compares every
// snapshot with one built from scratch (checkSnapshot), and lookups of
// removed names and providers with nil.
func TestRegistryScaleModel(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	r := New()
	trusts := []abi.TrustLevel{abi.Untrusted, abi.Community, abi.Verified, abi.System}
	vers := []string{"1.0.0", "1.1.0", "2.0.0"}
	steps := 600
	if testing.Short() {
		steps = 300
	}
	for step := range steps {
		id := fmt.Sprintf("org.scale.p%03d", rng.Intn(300))
		var err error
		if rng.Intn(3) == 0 {
			err = r.Unregister(id)
		} else {
			var tools []abi.ToolDef
			seen := map[string]bool{}
			for k := 1 + rng.Intn(20); k > 0; k-- {
				d := tool(fmt.Sprintf("n%03d", rng.Intn(600)), vers[rng.Intn(3)])
				if !seen[d.Name+d.Version] {
					seen[d.Name+d.Version] = true
					tools = append(tools, d)
				}
			}
			_, err = r.Apply(trusted(id, trusts[rng.Intn(4)]), tools, Options{Replace: true, Partial: rng.Intn(4) > 0})
		}
		_ = err // conflicts and unknown ids are refused: nothing changes
		s := r.snap.Load()
		if err := checkSnapshot(s); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if s.tools.get(fmt.Sprintf("n%03d", 600+rng.Intn(10))) != nil || s.providers.get("org.scale.none") != nil {
			t.Fatalf("step %d: an unknown key resolves", step)
		}
	}
	if len(r.Providers()) == 0 || len(r.Tools()) < 200 {
		t.Errorf("%d providers, %d tools: the test did not grow the registry", len(r.Providers()), len(r.Tools()))
	}
	for _, p := range r.Providers() {
		if err := r.Unregister(p.Info.ID); err != nil {
			t.Fatal(err)
		}
		if err := checkSnapshot(r.snap.Load()); err != nil {
			t.Fatalf("removing %s: %v", p.Info.ID, err)
		}
	}
}
