package registry

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/aios-host/aios-host/abi"
)

// Options tune Apply.
type Options struct {
	// Replace swaps the tool set of a registered provider (hot reload);
	// without it a registered id is refused.
	Replace bool
	// Partial leaves out, instead of refusing the registration, a tool
	// version that conflicts with a provider of the same trust (the same
	// version) or of more trust (any version of its name): a remote
	// adapter or an MCP server offering a tool another host also serves.
	Partial bool
	// Drop is a provider removed in the same snapshot: the provider's
	// previous id when its id changed (an Adapter Card's adapter.id
	// edited), so that no reader sees neither id's tools.
	Drop string
}

// Shadow is one tool version registered but not served.
type Shadow struct {
	Tool     string         `json:"tool"`
	Version  string         `json:"version"`
	Provider string         `json:"provider"` // whose version it is
	Trust    abi.TrustLevel `json:"-"`
	By       string         `json:"by"` // the provider whose version is served instead
	ByTrust  abi.TrustLevel `json:"-"`
}

// Report says what a registration did to tool versions besides adding its
// own: Displaced are versions of less trusted providers it now serves
// instead; LeftOut are its own versions a provider of more trust (or, with
// Partial, the same trust) serves instead; Restored are shadowed versions
// of other providers served again because what shadowed them went.
type Report struct {
	Displaced, LeftOut, Restored []Shadow
	// Replaced is the record the registration replaced (its own previous
	// one, or nil), Dropped the one Options.Drop removed (or nil): the
	// caller closes exactly those.
	Replaced, Dropped *ProviderRecord
}

// Apply registers (or with opts.Replace replaces) provider p's tools in one
// snapshot: readers see either the old state or the new one.
//
// A tool version (name@version) is served by one provider. When another
// provider already serves it:
//   - a more trusted newcomer displaces it: the holder stays registered
//     with its other tools, and its version is served again when the
//     newcomer withdraws it (an unsigned file whose name sorts before a
//     signed folder cannot keep the signed provider's tool);
//   - a less trusted newcomer's version is left out the same way (it is
//     served if the holder goes), so which provider serves does not depend
//     on the order in which they loaded;
//   - at the same trust the registration is refused (Conflict), or with
//     opts.Partial that version is left out.
//
// A less trusted provider adding another version of a more trusted one's
// tool is refused (or left out with opts.Partial). On an error nothing
// changes.
func (r *Registry) Apply(p *ProviderRecord, tools []abi.ToolDef, opts Options) (Report, error) {
	entries, err := newEntries(p, tools)
	if err != nil {
		return Report{}, err
	}
	pc := r.prepare(p.Info.ID, opts.Drop, entries)
	if testHookPrepared != nil {
		testHookPrepared()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	pc.locked = &r.lockedPairs
	if r.snap.Load().providers.get(p.Info.ID) != nil && !opts.Replace {
		return Report{}, abi.Errorf(abi.Conflict, "provider %s is already registered (use Replace to swap its tools)", p.Info.ID)
	}
	if opts.Drop == p.Info.ID {
		opts.Drop = ""
	}
	if opts.Drop != "" && r.snap.Load().providers.get(opts.Drop) == nil {
		return Report{}, abi.Errorf(abi.NotFound, "provider %s to drop is not registered", opts.Drop)
	}
	return r.apply(p.Info.ID, p, entries, opts.Partial, opts.Drop, pc)
}

// Shadowed returns the tool versions provider id registered that are not
// served (see Apply), by name then version.
func (r *Registry) Shadowed(id string) []*Entry {
	ps := r.snap.Load().providers.get(id)
	if ps == nil || ps.declared == nil {
		return nil
	}
	served := make(map[*Entry]bool, len(ps.entries))
	for _, e := range ps.entries {
		served[e] = true
	}
	var out []*Entry
	for _, e := range ps.declared {
		if !served[e] {
			out = append(out, e)
		}
	}
	return out
}

// tx is one registry change being built: the providers whose state
// changes, over the published snapshot.
type tx struct {
	old     *snapshot
	changed map[string]*provState // id → new state (nil state: removed)
	work    *int                  // Registry.work
}

func (t *tx) state(id string) *provState {
	if ps, ok := t.changed[id]; ok {
		return ps
	}
	return t.old.providers.get(id)
}

// holders are the served versions of name in the state being built.
func (t *tx) holders(name string) []*Entry {
	var out []*Entry
	if set := t.old.tools.get(name); set != nil {
		for _, x := range set.versions {
			if _, ch := t.changed[x.Provider.Info.ID]; !ch {
				out = append(out, x)
			}
		}
	}
	for _, ps := range t.changed {
		if ps == nil {
			continue
		}
		for _, e := range ps.entries {
			if e.Def.Name == name {
				out = append(out, e)
			}
		}
	}
	return out
}

// nameHolders is, for a registration by provider id at trust, the
// entries serving one name (tx.holders, those of other providers) indexed
// by what decides a version of the name against them: a holder of the
// same version, a more trusted one, a less trusted one (which a served
// version displaces); a holder of another version at the same trust
// decides nothing.
type nameHolders struct {
	all    []*Entry
	byVer  map[string][]int // Entry.key → indices in all, ascending
	higher []int            // more trusted than id, ascending
	lower  []int            // less trusted than id, ascending
	// pushed: a version of the name was served, displacing every holder
	// in lower (displacing them again changes nothing).
	pushed bool
}

func (t *tx) nameHolders(name, id string, trust abi.TrustLevel) *nameHolders {
	nh := &nameHolders{byVer: map[string][]int{}}
	for _, x := range t.holders(name) {
		if x.Provider.Info.ID == id {
			continue
		}
		i := len(nh.all)
		nh.all = append(nh.all, x)
		nh.byVer[x.key()] = append(nh.byVer[x.key()], i)
		switch {
		case x.Provider.Trust > trust:
			nh.higher = append(nh.higher, i)
		case x.Provider.Trust < trust:
			nh.lower = append(nh.lower, i)
		}
	}
	*t.work += len(nh.all)
	return nh
}

// serve sets the served entries of provider id, keeping its declared ones.
func (t *tx) serve(id string, entries []*Entry) {
	ps := t.state(id)
	declared := ps.all()
	n := &provState{rec: ps.rec, entries: entries}
	if len(entries) != len(declared) {
		n.declared = declared
	}
	t.changed[id] = n
}

func shadowOf(e, by *Entry) Shadow {
	return Shadow{Tool: e.Def.Name, Version: e.ver, Provider: e.Provider.Info.ID, Trust: e.Provider.Trust,
		By: by.Provider.Info.ID, ByTrust: by.Provider.Trust}
}

// apply publishes a snapshot where provider id has registered entries
// (and record rec; nil removes the provider), shadowing and restoring tool
// versions as Apply says. Called with r.mu held.
//
// Order: id's previous registration and drop leave first, and what they
// shadowed comes back *weakly* (restore); then id's entries are checked
// against what is served: a weakly restored version of a provider as
// trusted as id or less goes back to its shadow (a hot reload that keeps
// a version), a more trusted one is served instead of id's (a reload that
// lowered id's trust). Whether a given name@version is served, and by
// whom, does not depend on which provider registered first: a more
// trusted provider's versions of a name shadow every version of it of
// less trusted providers, so the providers serving one name are all of
// one trust level (docs/registry.md).
func (r *Registry) apply(id string, rec *ProviderRecord, entries []*Entry, partial bool, drop string, pc *pairCache) (Report, error) {
	old := r.snap.Load()
	t := &tx{old: old, changed: map[string]*provState{}, work: &r.work}
	var rep Report
	// Versions id registered before (served or shadowed): a reload keeps
	// them, left out where a more trusted provider holds the name, instead
	// of being refused as new versions of that provider's tool.
	prevServed := map[string]bool{}
	lowered := map[string]bool{} // versions id registered at a higher trust than it has now
	if ps := old.providers.get(id); ps != nil {
		rep.Replaced = ps.rec
		for _, e := range ps.all() {
			if rec != nil && ps.rec.Trust <= rec.Trust {
				prevServed[e.key()] = true
			} else {
				// A provider that lost trust is checked like a new one,
				// but not refused for what it registered: those versions
				// are left out where a more trusted provider holds the name.
				lowered[e.key()] = true
			}
		}
		t.changed[id] = nil
	}
	if drop != "" && old.providers.get(drop) != nil {
		rep.Dropped = old.providers.get(drop).rec
		t.changed[drop] = nil
	}
	gate := r.restoreGate(pc)
	restored := t.restore(id, drop, gate)
	weak := make(map[*Entry]bool, len(restored))
	for _, e := range restored {
		weak[e] = true
	}

	var served []*Entry
	displaced := map[string]map[*Entry]bool{} // holder id → its entries displaced
	byName := map[string]*nameHolders{}
	var cand []int
	for _, e := range entries {
		keep := true
		var pushes []*Entry // the holders e displaces if it is served
		nh := byName[e.Def.Name]
		if nh == nil {
			nh = t.nameHolders(e.Def.Name, id, rec.Trust)
			byName[e.Def.Name] = nh
		}
		holders := nh.all
		same := nh.byVer[e.key()]
		// A version already served (by a less trusted provider, which e
		// displaces) is no new version of a more trusted provider's tool.
		exists := prevServed[e.key()] || len(same) > 0
		// The holders that can decide e, in holders' order (see
		// nameHolders): those of its version; the first more trusted one
		// of another version (all of them leave e out or refuse it
		// alike); the less trusted ones, displaced, until a served
		// version of the name displaced them. Looking at every holder for
		// each version was quadratic: 4 000 versions beside another
		// provider's 4 000 took 16 s.
		cand = append(cand[:0], same...)
		for _, i := range nh.higher {
			if !slices.Contains(same, i) {
				cand = append(cand, i)
				break
			}
		}
		if !nh.pushed {
			cand = append(cand, nh.lower...)
		}
		slices.Sort(cand)
		cand = slices.Compact(cand)
		*t.work += len(cand)
		for _, i := range cand {
			x := holders[i]
			xid := x.Provider.Info.ID
			same := x.Version.Compare(e.Version) == 0
			switch {
			case rec.Trust > x.Provider.Trust, same && weak[x] && rec.Trust == x.Provider.Trust:
				// A more trusted provider's version shadows a less
				// trusted provider's versions of the name, the same and
				// the others, so which provider serves a name does not
				// depend on which registered first.
				pushes = append(pushes, x)
			case rec.Trust < x.Provider.Trust && (same || partial || lowered[e.key()] || exists), (partial || lowered[e.key()]) && same:
				if keep {
					rep.LeftOut = append(rep.LeftOut, shadowOf(e, x))
				}
				keep = false
			case same:
				from := ""
				if src := x.Provider.Source; src != "" {
					from = " (from " + src + ")"
				}
				if x.ver != e.ver {
					// 1.0.0+b after 1.0.0+a: name the one registered.
					from += " as " + e.Def.Name + "@" + x.ver + " (build metadata does not make another version)"
				}
				te := abi.Errorf(abi.Conflict, "tool %s@%s from provider %s conflicts with the same tool version already registered by provider %s%s: give one of them another name or version",
					e.Def.Name, e.ver, id, xid, from)
				te.Data = map[string]any{"tool": e.Def.Name, "version": e.ver, "provider": id, "registered_by": xid, "registered_version": x.ver}
				return Report{}, te
			case rec.Trust < x.Provider.Trust && !exists:
				te := abi.Errorf(abi.Conflict, "tool %s is registered by provider %s (trust %s); provider %s (trust %s) may not add versions of it (%s@%s): "+
					"a less trusted provider could take over its callers. Give the tool another name, or the provider more trust",
					e.Def.Name, xid, x.Provider.Trust, id, rec.Trust, e.Def.Name, e.ver)
				te.Data = map[string]any{"tool": e.Def.Name, "version": e.ver, "provider": id, "trust": rec.Trust.String(),
					"registered_by": xid, "registered_by_trust": x.Provider.Trust.String()}
				return Report{}, te
			}
		}
		if !keep {
			continue
		}
		served = append(served, e)
		nh.pushed = true
		for _, x := range pushes {
			xid := x.Provider.Info.ID
			if displaced[xid] == nil {
				displaced[xid] = map[*Entry]bool{}
			}
			if displaced[xid][x] {
				continue // pushed by another of id's versions already: reported once
			}
			displaced[xid][x] = true
			if weak[x] {
				delete(weak, x) // back to its shadow: no change for its provider
			} else {
				rep.Displaced = append(rep.Displaced, shadowOf(x, e))
			}
		}
	}
	var oldDeclared []*Entry
	if ps := old.providers.get(id); ps != nil {
		oldDeclared = ps.all()
	}
	// A tool version this provider registers again with the very same
	// definition (a hot reload that did not change it) keeps its
	// registration time and SemVer verdict; a new or changed definition is
	// registered now, and checked.
	var fresh []*Entry
	if len(entries) > 0 {
		oldBy := make(map[string]*Entry, len(oldDeclared))
		for _, e := range oldDeclared {
			oldBy[e.key()] = e
		}
		now := r.now()
		for _, e := range entries {
			if o := oldBy[e.key()]; o != nil && pc.equal(o, e) {
				e.RegisteredAt, e.Violation = o.RegisteredAt, o.Violation
				continue
			}
			e.RegisteredAt, e.Violation = now, nil
			fresh = append(fresh, e)
		}
	}
	if rec != nil {
		ps := &provState{rec: rec, entries: served}
		if len(served) != len(entries) {
			ps.declared = entries
		}
		t.changed[id] = ps
	}
	for _, xid := range sortedKeys(displaced) {
		gone := displaced[xid]
		t.serve(xid, slices.DeleteFunc(slices.Clone(t.state(xid).entries), func(x *Entry) bool { return gone[x] }))
	}
	// A version restored weakly was checked without id's new tools: one
	// they make unfree (id keeps a more trusted hold on the name) or that
	// fails the gate beside them goes back to its shadow.
	back := map[string]map[*Entry]bool{}
	others := map[[2]string]*otherHolders{} // (name, provider): nothing is served or withdrawn in this loop
	isFree := func(e *Entry) bool {
		k := [2]string{e.Def.Name, e.Provider.Info.ID}
		if others[k] == nil {
			others[k] = t.otherHolders(k[0], k[1])
		}
		return others[k].free(e)
	}
	for _, e := range restored {
		if weak[e] && (!isFree(e) || gate != nil && !gate(t, e)) {
			pid := e.Provider.Info.ID
			if back[pid] == nil {
				back[pid] = map[*Entry]bool{}
			}
			back[pid][e] = true
			delete(weak, e)
		}
	}
	for _, pid := range sortedKeys(back) {
		gone := back[pid]
		t.serve(pid, slices.DeleteFunc(slices.Clone(t.state(pid).entries), func(x *Entry) bool { return gone[x] }))
	}
	for _, e := range restored {
		if weak[e] {
			rep.Restored = append(rep.Restored, Shadow{Tool: e.Def.Name, Version: e.ver, Provider: e.Provider.Info.ID, Trust: e.Provider.Trust})
		}
	}

	next := t.build()

	var violations []SemverViolation
	if r.semver != SemverOff && len(fresh) > 0 {
		isServed := make(map[*Entry]bool, len(served))
		for _, e := range served {
			isServed[e] = true
		}
		// The definitions of id's versions that were served before this
		// registration (those its callers used).
		prevDef := map[string]*Entry{}
		if ps := old.providers.get(id); ps != nil {
			for _, o := range ps.entries {
				prevDef[o.key()] = o
			}
		}
		// The versions this provider withdraws count as registered before:
		// a hot reload that replaces 1.0.0 with 1.1.0 is compared with it.
		kept := make(map[string]bool, len(entries))
		for _, e := range entries {
			kept[e.key()] = true
		}
		gone := map[string][]*Entry{}
		for _, e := range oldDeclared {
			if !kept[e.key()] {
				gone[e.Def.Name] = append(gone[e.Def.Name], e)
			}
		}
		type verdict struct {
			e *Entry
			v *SemverViolation
		}
		var found []verdict
		withGone := map[string][]*Entry{} // name → its served versions and those withdrawn, sorted
		for _, e := range fresh {
			var versions []*Entry
			if set := next.tools.get(e.Def.Name); set != nil {
				versions = set.versions
			}
			if !isServed[e] {
				if r.semver == SemverRefuse {
					continue // left out: checked if it is ever served (restoreGate)
				}
				// Under warn a left-out version is checked now, so that
				// it carries its verdict if it is ever served (its Entry
				// is not changed once published): against the versions
				// it would be served beside — its own provider's, and
				// those served but for what shadows it (the same version,
				// a more trusted provider's), which will be gone then.
				var beside []*Entry
				for _, x := range versions {
					if x.Version.Compare(e.Version) != 0 && x.Provider.Trust <= e.Provider.Trust && x.Provider.Info.ID != id {
						beside = append(beside, x)
					}
				}
				for _, x := range entries {
					if x.Def.Name == e.Def.Name {
						beside = append(beside, x)
					}
				}
				versions = beside
				slices.SortFunc(versions, compareEntries)
			}
			if g := gone[e.Def.Name]; len(g) > 0 {
				if !isServed[e] {
					versions = append(slices.Clone(versions), g...)
					slices.SortFunc(versions, compareEntries)
				} else if withGone[e.Def.Name] != nil {
					versions = withGone[e.Def.Name]
				} else {
					// The same for every served version of the name:
					// merged and sorted once (for each version, a reload
					// replacing 2 000 versions sorted 4 000 entries 2 000
					// times).
					versions = append(slices.Clone(versions), g...)
					slices.SortFunc(versions, compareEntries)
					withGone[e.Def.Name] = versions
				}
			}
			// A released version redefined must keep its own callers
			// (SemVer §3: a release's contents do not change).
			v := checkRedefinition(prevDef[e.key()], e, pc)
			if v == nil {
				v = checkSemver(e, versions, pc)
			}
			if v == nil {
				continue
			}
			if r.semver == SemverRefuse {
				return Report{}, semverError(v, e, versions)
			}
			found = append(found, verdict{e, v})
		}
		// A version checked with one above it that breaks its callers
		// (an insertion below a release) carries that violation, unless
		// the release is registered here too and found it itself: one
		// violation, reported once, by the version that breaks.
		own := make(map[[3]string]bool, len(found))
		for _, f := range found {
			if f.v.Version == f.e.ver {
				own[[3]string{f.v.Tool, f.v.Version, f.v.Previous}] = true
			}
		}
		for _, f := range found {
			if f.v.Version != f.e.ver && own[[3]string{f.v.Tool, f.v.Version, f.v.Previous}] {
				continue
			}
			f.e.Violation = f.v
			violations = append(violations, *f.v)
		}
	}

	r.snap.Store(next)
	r.published(next)
	if r.warn != nil {
		for _, v := range violations {
			r.warn(v)
		}
	}
	ids := sortedKeys(t.changed)
	slices.SortStableFunc(ids, func(a, b string) int { // this provider's event first
		return cmp.Compare(boolInt(a != id), boolInt(b != id))
	})
	for _, pid := range ids {
		ev := providerEvent(pid, old.providers.get(pid), t.changed[pid], pc)
		if pid == id {
			ev.Violations = violations
		}
		if !ev.empty() {
			r.subs.publish(ev)
		}
	}
	return rep, nil
}

// restoreGate is what a shadowed version must pass to be served again:
// under registry.semver_check refuse, not breaking the version below it
// (a version left out was never checked).
func (r *Registry) restoreGate(pc *pairCache) func(t *tx, e *Entry) bool {
	if r.semver != SemverRefuse {
		return nil
	}
	return func(t *tx, e *Entry) bool {
		versions := append(t.holders(e.Def.Name), e)
		slices.SortFunc(versions, compareEntries)
		return checkSemver(e, versions, pc) == nil
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// restore serves again the shadowed versions of providers other than id
// and drop that nothing shadows any more (and that pass gate, when set),
// the most trusted providers first. It returns them.
func (t *tx) restore(id, drop string, gate func(*tx, *Entry) bool) []*Entry {
	type cand struct {
		pid string
		ps  *provState
	}
	var cands []cand
	seen := map[string]bool{id: true, drop: true}
	add := func(pid string, ps *provState) {
		if !seen[pid] && ps != nil && ps.declared != nil {
			seen[pid] = true
			cands = append(cands, cand{pid, ps})
		}
	}
	for pid, ps := range t.changed {
		add(pid, ps)
	}
	// A shadowed version can be served again only when the holders of its
	// name change: the names the changed providers served.
	for pid := range t.changed {
		if ops := t.old.providers.get(pid); ops != nil {
			for _, e := range ops.entries {
				if set := t.old.shadowIdx.get(e.Def.Name); set != nil {
					for sp := range *set {
						add(sp, t.state(sp))
					}
				}
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if c := cmp.Compare(b.ps.rec.Trust, a.ps.rec.Trust); c != 0 {
			return c
		}
		return strings.Compare(a.pid, b.pid)
	})
	var out []*Entry
	for _, c := range cands {
		ps := t.state(c.pid)
		served := make(map[*Entry]bool, len(ps.entries))
		for _, e := range ps.entries {
			served[e] = true
		}
		// What the other providers serve does not change while c's
		// versions come back: free looks at it once per name, not once
		// per version (a scan of every holder for each version, and a
		// sort of c's entries for each, made 4 000 versions coming back
		// take 4.8 s).
		others := map[string]*otherHolders{}
		var back []*Entry
		for _, e := range ps.declared { // by name then version: a lower version is back before a higher one is checked
			if served[e] {
				continue
			}
			oh := others[e.Def.Name]
			if oh == nil {
				oh = t.otherHolders(e.Def.Name, c.pid)
				others[e.Def.Name] = oh
			}
			if !oh.free(e) {
				continue
			}
			if gate != nil {
				if !gate(t, e) {
					continue
				}
				// Served now: the gate of a higher version compares with it.
				entries := append(slices.Clone(t.state(c.pid).entries), e)
				slices.SortFunc(entries, compareEntries)
				t.serve(c.pid, entries)
			} else {
				back = append(back, e)
			}
			out = append(out, e)
		}
		if len(back) > 0 {
			entries := append(slices.Clone(t.state(c.pid).entries), back...)
			slices.SortFunc(entries, compareEntries)
			t.serve(c.pid, entries)
		}
	}
	return out
}

// otherHolders is what the providers other than one serve of a name in
// the state being built: their versions (Entry.key) and the highest trust
// among them.
type otherHolders struct {
	keys map[string]bool
	top  abi.TrustLevel
}

func (t *tx) otherHolders(name, id string) *otherHolders {
	oh := &otherHolders{keys: map[string]bool{}, top: -1}
	for _, x := range t.holders(name) {
		if x.Provider.Info.ID == id {
			continue
		}
		oh.keys[x.key()] = true
		oh.top = max(oh.top, x.Provider.Trust)
	}
	*t.work += len(oh.keys)
	return oh
}

// free reports whether shadowed entry e, of the provider oh leaves out,
// may be served in the state being built: no other provider serves its
// version, and none more trusted serves its name.
func (oh *otherHolders) free(e *Entry) bool {
	return !oh.keys[e.key()] && oh.top <= e.Provider.Trust
}

// build makes the snapshot of the state: the old one with the changed
// providers' served entries swapped in. Its cost is about the changed
// providers' entries (binary searches, the overlays' deltas, the chunks
// they fall in) plus a copy of each chunk list, not a pass over every
// entry.
func (t *tx) build() *snapshot {
	old := t.old
	next := &snapshot{memo: newMemo()}
	ids := sortedKeys(t.changed)

	// shadowIdx: the names whose set of shadowing providers changes.
	idx := map[string]*map[string]bool{}
	for _, pid := range ids {
		was, is := shadowedNames(old.providers.get(pid)), shadowedNames(t.changed[pid])
		for n := range was {
			if !is[n] {
				set := idxSet(idx, &old.shadowIdx, n)
				delete(*set, pid)
			}
		}
		for n := range is {
			if !was[n] {
				(*idxSet(idx, &old.shadowIdx, n))[pid] = true
			}
		}
	}
	for n, set := range idx {
		if len(*set) == 0 {
			idx[n] = nil
		}
	}
	next.shadowIdx = old.shadowIdx
	if len(idx) > 0 {
		next.shadowIdx = old.shadowIdx.with(idx, t.work)
	}

	// The changed providers' old and new served entries, the names they
	// hold, and the provider list's edits.
	var removed, added []*Entry
	byName := map[string][]*Entry{} // name → the changed providers' served versions
	var provDel, provAt []pos
	var provIns []*ProviderRecord
	byID := func(p *ProviderRecord, id string) int { return strings.Compare(p.Info.ID, id) }
	for _, pid := range ids {
		ps := t.changed[pid]
		at, found := seek(old.provs, pid, byID)
		if found {
			provDel = append(provDel, at)
			removed = append(removed, old.providers.get(pid).entries...)
		}
		if ps == nil {
			continue
		}
		provIns, provAt = append(provIns, ps.rec), append(provAt, at)
		added = append(added, ps.entries...)
		for _, e := range ps.entries {
			byName[e.Def.Name] = append(byName[e.Def.Name], e)
		}
	}
	*t.work += len(ids) + len(removed) + len(added)
	next.providers = old.providers.with(t.changed, t.work)
	next.provs = old.provs.patch(provDel, provIns, provAt, t.work)

	// tools: the sets of the names the changed providers held or hold.
	names := make([]string, 0, len(removed)+len(added))
	for _, e := range removed {
		names = append(names, e.Def.Name)
	}
	for _, e := range added {
		names = append(names, e.Def.Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	sets := make(map[string]*toolSet, len(names))
	for _, name := range names {
		var versions []*Entry
		if set := old.tools.get(name); set != nil {
			for _, x := range set.versions {
				if _, ch := t.changed[x.Provider.Info.ID]; !ch {
					versions = append(versions, x)
				}
			}
			*t.work += len(set.versions)
		}
		versions = append(versions, byName[name]...)
		if len(versions) == 0 {
			sets[name] = nil
			continue
		}
		slices.SortFunc(versions, compareEntries)
		sets[name] = &toolSet{versions: versions, def: defaultOf(versions)}
	}
	next.tools = old.tools.with(sets, t.work)

	// sets, setSigs: the affected names patched; the same edits keep their
	// chunks aligned (a chunk's length decides its split or merge).
	var setDel, setAt []pos
	var setIns []*toolSet
	var sigIns []sig
	setName := func(set *toolSet, name string) int { return strings.Compare(set.versions[0].Def.Name, name) }
	for _, name := range names {
		at, found := seek(old.sets, name, setName)
		if found {
			setDel = append(setDel, at)
		}
		set := sets[name]
		if set == nil {
			continue
		}
		var u sig
		for _, e := range set.versions {
			for w := range u {
				u[w] |= e.sig[w]
			}
		}
		setIns, sigIns, setAt = append(setIns, set), append(sigIns, u), append(setAt, at)
	}
	next.sets = old.sets.patch(setDel, setIns, setAt, t.work)
	next.setSigs = old.setSigs.patch(setDel, sigIns, setAt, t.work)

	// all: the old list without the changed providers' entries, with their
	// served entries.
	slices.SortFunc(removed, compareEntries)
	allDel := make([]pos, len(removed))
	for k, e := range removed {
		p, found := seek(old.all, e, compareEntries)
		if !found || old.all.at(p) != e {
			panic("registry: a served entry is not in the snapshot's list")
		}
		allDel[k] = p
	}
	slices.SortFunc(added, compareEntries)
	allAt := make([]pos, len(added))
	for k, e := range added {
		allAt[k], _ = seek(old.all, e, compareEntries)
	}
	next.all = old.all.patch(allDel, added, allAt, t.work)
	return next
}

// shadowedNames is the names of ps's shadowed versions.
func shadowedNames(ps *provState) map[string]bool {
	if ps == nil || ps.declared == nil {
		return nil
	}
	served := make(map[*Entry]bool, len(ps.entries))
	for _, e := range ps.entries {
		served[e] = true
	}
	out := map[string]bool{}
	for _, e := range ps.declared {
		if !served[e] {
			out[e.Def.Name] = true
		}
	}
	return out
}

// idxSet is name's set in the index changes being built, copied from o
// the first time.
func idxSet(idx map[string]*map[string]bool, o *overlay[map[string]bool], name string) *map[string]bool {
	if set, ok := idx[name]; ok {
		return set
	}
	set := map[string]bool{}
	if old := o.get(name); old != nil {
		set = maps.Clone(*old)
	}
	idx[name] = &set
	return &set
}

// providerEvent is the event of one provider's change from o to n (either
// nil: added or removed).
func providerEvent(id string, o, n *provState, pc *pairCache) Event {
	var oldEntries, newEntries []*Entry
	if o != nil {
		oldEntries = o.entries
	}
	if n != nil {
		newEntries = n.entries
	}
	ev := diff(oldEntries, newEntries, pc)
	switch {
	case o == nil && n != nil:
		ev.Provider = &ProviderChange{ID: id, Name: n.rec.Info.Name, Version: n.rec.Info.Version, Action: "added"}
	case o != nil && n == nil:
		ev.Provider = &ProviderChange{ID: id, Name: o.rec.Info.Name, Version: o.rec.Info.Version, Action: "removed"}
	case o != nil && (len(ev.Added)+len(ev.Removed)+len(ev.Updated) > 0 || o.rec.Info.Name != n.rec.Info.Name ||
		o.rec.Info.Version != n.rec.Info.Version || o.rec.Info.Description != n.rec.Info.Description ||
		// What tools/list shows of each tool: a plugin renamed x.js →
		// x.ts, moved to a folder of another trust, or served by another
		// description is an update even with the same tools.
		o.rec.Info.Runtime != n.rec.Info.Runtime || o.rec.Trust != n.rec.Trust || o.rec.Source != n.rec.Source):
		ev.Provider = &ProviderChange{ID: id, Name: n.rec.Info.Name, Version: n.rec.Info.Version, Action: "updated"}
	}
	return ev
}

// testHookPrepared, when set, runs in Apply between prepare and taking
// the write lock.
var testHookPrepared func()
