package registry

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestRegistryModel runs random Register/Replace/Apply(Partial,Drop)/
// Remove operations on a few providers and checks after each one:
// one provider per served name@version; no shadowed version is free (it
// would have been restored); no shadowed version is more trusted than the
// served holder of the same version; the event stream replays to the
// snapshot; Tools == union of ProviderTools; Search (text and all) agrees
// with a brute force over Tools; a name's served versions are of one
// trust level (whatever the order of registration).
func TestRegistryModel(t *testing.T) {
	names := []string{"alpha", "beta", "gamma"}
	vers := []string{"1.0.0", "1.1.0", "2.0.0"}
	words := []string{"red", "green", "blue"}
	trusts := []abi.TrustLevel{abi.Untrusted, abi.Community, abi.Verified, abi.System}
	failures := map[string]int{}
	first := map[string]string{}
	for seed := range seeds(300) {
		rng := rand.New(rand.NewSource(seed))
		r := New()
		r.SetSemverCheck(SemverOff, nil)
		events, cancel := r.Subscribe(100000)
		model := map[string]map[string]bool{}
		var log []string
		for step := 0; step < 60; step++ {
			id := fmt.Sprintf("org.p%d", rng.Intn(5))
			var tools []abi.ToolDef
			seen := map[string]bool{}
			for k := rng.Intn(4); k > 0; k-- {
				n, v := names[rng.Intn(3)], vers[rng.Intn(3)]
				if seen[n+v] {
					continue
				}
				seen[n+v] = true
				d := tool(n, v)
				d.Description = "the " + n + " tool " + words[rng.Intn(3)]
				tools = append(tools, d)
			}
			rec := trusted(id, trusts[rng.Intn(4)])
			var err error
			op := rng.Intn(5)
			var drop string
			drop, err = randomOp(r, rng, op, rec, tools, 5)
			if drop != "" {
				log = append(log, "drop "+drop)
			}
			log = append(log, fmt.Sprintf("op%d %s %v %v -> %v", op, id, rec.Trust, toolsStr(tools), err))
			// replay events
			if replayEvents(events, model) {
				t.Fatal("overflow")
			}
			if msg := checkModel(r, model, words); msg != "" {
				failures[msg]++
				if _, ok := first[msg]; !ok {
					first[msg] = fmt.Sprintf("seed %d step %d:\n  %s", seed, step, strings.Join(log, "\n  "))
				}
				break
			}
		}
		cancel()
	}
	for msg, n := range failures {
		t.Errorf("%d runs: %s\nfirst: %s", n, msg, first[msg])
	}
}

// replayEvents applies the events waiting in events to model (provider id
// → its served name@version set); true when one reported an overflow.
func replayEvents(events <-chan Event, model map[string]map[string]bool) (overflow bool) {
	for len(events) > 0 {
		ev := <-events
		if ev.Overflow {
			overflow = true
			continue
		}
		pid := ev.Provider.ID
		if ev.Provider.Action == "removed" {
			delete(model, pid)
			continue
		}
		if model[pid] == nil {
			model[pid] = map[string]bool{}
		}
		for _, a := range ev.Added {
			model[pid][a.Name+"@"+a.Version] = true
		}
		for _, a := range ev.Removed {
			delete(model[pid], a.Name+"@"+a.Version)
		}
	}
	return overflow
}

// randomOp applies operation op (0–4) of the model tests for rec and
// tools: Register, Replace, a partial Apply, an Apply dropping one of
// providers org.p0…org.p(nDrop-1), or Unregister. drop says which provider
// it dropped ("" none).
func randomOp(r *Registry, rng *rand.Rand, op int, rec *ProviderRecord, tools []abi.ToolDef, nDrop int) (drop string, err error) {
	switch op {
	case 0:
		err = r.Register(rec, tools)
	case 1:
		err = r.Replace(rec, tools)
	case 2:
		_, err = r.Apply(rec, tools, Options{Replace: true, Partial: true})
	case 3:
		drop = fmt.Sprintf("org.p%d", rng.Intn(nDrop))
		_, err = r.Apply(rec, tools, Options{Replace: true, Partial: rng.Intn(2) == 0, Drop: drop})
	case 4:
		err = r.Unregister(rec.Info.ID)
	}
	return drop, err
}

func toolsStr(ts []abi.ToolDef) string {
	var s []string
	for _, d := range ts {
		s = append(s, d.Name+"@"+d.Version)
	}
	return strings.Join(s, ",")
}

func checkModel(r *Registry, model map[string]map[string]bool, words []string) string {
	if err := checkSnapshot(r.snap.Load()); err != nil {
		return "the patched snapshot differs from one built from scratch: " + err.Error()
	}
	byKey := map[string]*Entry{}
	var union []*Entry
	for _, p := range r.Providers() {
		for _, e := range r.ProviderTools(p.Info.ID) {
			k := e.Def.Name + "@" + e.ver
			if o := byKey[k]; o != nil {
				return "two providers serve one name@version"
			}
			byKey[k] = e
			union = append(union, e)
		}
		got := map[string]bool{}
		for _, e := range r.ProviderTools(p.Info.ID) {
			got[e.Def.Name+"@"+e.ver] = true
		}
		if fmt.Sprint(got) != fmt.Sprint(model[p.Info.ID]) && !(len(got) == 0 && len(model[p.Info.ID]) == 0) {
			return "event replay disagrees with the snapshot"
		}
	}
	for pid := range model {
		if r.Provider(pid) == nil {
			return "event replay keeps a removed provider"
		}
	}
	for _, p := range r.Providers() {
		for _, e := range r.Shadowed(p.Info.ID) {
			free := true
			for _, x := range r.Versions(e.Def.Name) {
				if x.Provider.Info.ID == e.Provider.Info.ID {
					continue
				}
				if x.Version.Compare(e.Version) == 0 {
					free = false
					if x.Provider.Trust < e.Provider.Trust {
						return "a shadowed version is more trusted than the served one"
					}
				}
				if x.Provider.Trust > e.Provider.Trust {
					free = false
				}
			}
			if free {
				return "a shadowed version is free but not restored"
			}
		}
	}
	sortE := func(es []*Entry) string {
		var s []string
		for _, e := range es {
			s = append(s, e.Def.Name+"@"+e.ver+"/"+e.Provider.Info.ID)
		}
		sort.Strings(s)
		return strings.Join(s, " ")
	}
	if sortE(r.Tools()) != sortE(union) {
		return "Tools differs from the union of ProviderTools"
	}
	if !slices.IsSortedFunc(r.Tools(), compareEntries) {
		return "Tools not sorted"
	}
	if sortE(r.Search(Query{AllVersions: true, Limit: 1000})) != sortE(union) {
		return "Search(all) differs from Tools"
	}
	for _, w := range words {
		var want []*Entry
		for _, e := range union {
			if strings.Contains(e.Def.Description, w) {
				want = append(want, e)
			}
		}
		if sortE(r.Search(Query{Text: w, AllVersions: true, Limit: 1000})) != sortE(want) {
			return "Search(" + w + ") differs from brute force"
		}
	}
	for _, n := range []string{"alpha", "beta", "gamma"} {
		vs := r.Versions(n)
		// Whichever registered first, a name is served by providers of
		// one trust level: a more trusted provider's versions shadow a
		// less trusted one's other versions too.
		for _, x := range vs {
			if x.Provider.Trust != vs[0].Provider.Trust {
				return "one name served by providers of two trust levels"
			}
		}
		e, err := r.Resolve(n, "")
		if len(vs) == 0 {
			if err == nil {
				return "Resolve finds a name with no versions"
			}
			continue
		}
		if err != nil || e != defaultOf(vs) {
			return "Resolve differs from defaultOf(Versions)"
		}
		e2, err := r.Resolve(n, ">=1.0.0")
		if err != nil || e2.Provider.Trust != topTrust(vs) {
			return "Resolve(>=1.0.0) not of the top trust"
		}
	}
	return ""
}
