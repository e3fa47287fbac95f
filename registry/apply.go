package registry

import (
	"cmp"
	"maps"
	"reflect"
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
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.snap.Load().providers[p.Info.ID]; ok && !opts.Replace {
		return Report{}, abi.Errorf(abi.Conflict, "provider %s is already registered (use Replace to swap its tools)", p.Info.ID)
	}
	if opts.Drop == p.Info.ID {
		opts.Drop = ""
	}
	if opts.Drop != "" && r.snap.Load().providers[opts.Drop] == nil {
		return Report{}, abi.Errorf(abi.NotFound, "provider %s to drop is not registered", opts.Drop)
	}
	return r.apply(p.Info.ID, p, entries, opts.Partial, opts.Drop)
}

// Shadowed returns the tool versions provider id registered that are not
// served (see Apply), by name then version.
func (r *Registry) Shadowed(id string) []*Entry {
	ps := r.snap.Load().providers[id]
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
}

func (t *tx) state(id string) *provState {
	if ps, ok := t.changed[id]; ok {
		return ps
	}
	return t.old.providers[id]
}

// holders are the served versions of name in the state being built.
func (t *tx) holders(name string) []*Entry {
	var out []*Entry
	if set := t.old.tools[name]; set != nil {
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
// whom, does not depend on which provider registered first; a less
// trusted provider's *other* versions of a name may stay beside a more
// trusted one's when it registered them first (docs/registry.md).
func (r *Registry) apply(id string, rec *ProviderRecord, entries []*Entry, partial bool, drop string) (Report, error) {
	old := r.snap.Load()
	t := &tx{old: old, changed: map[string]*provState{}}
	var rep Report
	prevServed := map[string]bool{} // versions id served: they may stay beside a more trusted provider's
	lowered := map[string]bool{}    // versions id served at a higher trust than it has now
	if ps := old.providers[id]; ps != nil {
		rep.Replaced = ps.rec
		for _, e := range ps.entries {
			if rec != nil && ps.rec.Trust <= rec.Trust {
				prevServed[e.key()] = true
			} else {
				// A provider that lost trust is checked like a new one,
				// but not refused for what it served: those versions are
				// left out where a more trusted provider holds the name.
				lowered[e.key()] = true
			}
		}
		t.changed[id] = nil
	}
	if drop != "" && old.providers[drop] != nil {
		rep.Dropped = old.providers[drop].rec
		t.changed[drop] = nil
	}
	gate := r.restoreGate()
	restored := t.restore(id, drop, gate)
	weak := make(map[*Entry]bool, len(restored))
	for _, e := range restored {
		weak[e] = true
	}

	var served []*Entry
	displaced := map[string]map[*Entry]bool{} // holder id → its entries displaced
	for _, e := range entries {
		keep := true
		var pushes []*Entry // the holders e displaces if it is served
		holders := t.holders(e.Def.Name)
		// A version already served (by a less trusted provider, which e
		// displaces) is no new version of a more trusted provider's tool.
		exists := prevServed[e.key()] || slices.ContainsFunc(holders, func(x *Entry) bool {
			return x.Provider.Info.ID != id && x.Version.Compare(e.Version) == 0
		})
		for _, x := range holders {
			xid := x.Provider.Info.ID
			if xid == id {
				continue
			}
			same := x.Version.Compare(e.Version) == 0
			switch {
			case same && (rec.Trust > x.Provider.Trust || weak[x] && rec.Trust == x.Provider.Trust):
				pushes = append(pushes, x)
			case same && rec.Trust < x.Provider.Trust, (partial || lowered[e.key()]) && (same || rec.Trust < x.Provider.Trust && !exists):
				if keep {
					rep.LeftOut = append(rep.LeftOut, shadowOf(e, x))
				}
				keep = false
			case same:
				te := abi.Errorf(abi.Conflict, "tool %s@%s from provider %s conflicts with the same tool version already registered by provider %s",
					e.Def.Name, e.ver, id, xid)
				te.Data = map[string]any{"tool": e.Def.Name, "version": e.ver, "provider": id, "registered_by": xid}
				return Report{}, te
			case rec.Trust < x.Provider.Trust && !exists:
				te := abi.Errorf(abi.Conflict, "tool %s is registered by provider %s (trust %s); provider %s (trust %s) may not add versions of it: "+
					"a less trusted provider could take over its callers. Give the tool another name, or the provider more trust",
					e.Def.Name, xid, x.Provider.Trust, id, rec.Trust)
				te.Data = map[string]any{"tool": e.Def.Name, "version": e.ver, "provider": id, "trust": rec.Trust.String(),
					"registered_by": xid, "registered_by_trust": x.Provider.Trust.String()}
				return Report{}, te
			}
		}
		if !keep {
			continue
		}
		served = append(served, e)
		for _, x := range pushes {
			xid := x.Provider.Info.ID
			if displaced[xid] == nil {
				displaced[xid] = map[*Entry]bool{}
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
	if ps := old.providers[id]; ps != nil {
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
			if o := oldBy[e.key()]; o != nil && reflect.DeepEqual(o.Def, e.Def) {
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
	for _, e := range restored {
		if weak[e] && (!t.free(e) || gate != nil && !gate(t, e)) {
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
		for _, e := range fresh {
			if !isServed[e] {
				continue // left out: checked if it is ever served (restoreGate)
			}
			versions := next.tools[e.Def.Name].versions
			if g := gone[e.Def.Name]; len(g) > 0 {
				versions = append(slices.Clone(versions), g...)
				slices.SortFunc(versions, compareEntries)
			}
			v := checkSemver(e, versions)
			if v == nil {
				continue
			}
			if r.semver == SemverRefuse {
				return Report{}, semverError(v)
			}
			e.Violation = v
			violations = append(violations, *v)
		}
	}

	r.snap.Store(next)
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
		ev := providerEvent(pid, old.providers[pid], t.changed[pid])
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
func (r *Registry) restoreGate() func(t *tx, e *Entry) bool {
	if r.semver != SemverRefuse {
		return nil
	}
	return func(t *tx, e *Entry) bool {
		versions := append(t.holders(e.Def.Name), e)
		slices.SortFunc(versions, compareEntries)
		return checkSemver(e, versions) == nil
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
	for pid := range t.old.shadowing {
		add(pid, t.state(pid))
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
		for _, e := range ps.declared { // by name then version: a lower version is back before a higher one is checked
			if served[e] || !t.free(e) || gate != nil && !gate(t, e) {
				continue
			}
			entries := append(slices.Clone(t.state(c.pid).entries), e)
			slices.SortFunc(entries, compareEntries)
			t.serve(c.pid, entries)
			out = append(out, e)
		}
	}
	return out
}

// free reports whether shadowed entry e may be served in the state being
// built: no other provider serves its version, and none more trusted
// serves its name.
func (t *tx) free(e *Entry) bool {
	for _, x := range t.holders(e.Def.Name) {
		if x.Provider.Info.ID == e.Provider.Info.ID {
			continue
		}
		if x.Version.Compare(e.Version) == 0 || x.Provider.Trust > e.Provider.Trust {
			return false
		}
	}
	return true
}

// build makes the snapshot of the state: the old one with the changed
// providers' served entries swapped in.
func (t *tx) build() *snapshot {
	old := t.old
	next := &snapshot{
		tools:     make(map[string]*toolSet, len(old.tools)+8),
		providers: make(map[string]*provState, len(old.providers)+1),
		memo:      newMemo(),
		shadowing: maps.Clone(old.shadowing),
	}
	if next.shadowing == nil {
		next.shadowing = map[string]bool{}
	}
	for pid, ps := range t.changed {
		if ps != nil && ps.declared != nil {
			next.shadowing[pid] = true
		} else {
			delete(next.shadowing, pid)
		}
	}
	for k, v := range old.providers {
		next.providers[k] = v
	}
	for k, v := range old.tools {
		next.tools[k] = v
	}
	affected := map[string]bool{}
	var added []*Entry
	for pid, ps := range t.changed {
		if o := old.providers[pid]; o != nil {
			for _, e := range o.entries {
				affected[e.Def.Name] = true
			}
		}
		if ps == nil {
			delete(next.providers, pid)
			continue
		}
		next.providers[pid] = ps
		for _, e := range ps.entries {
			affected[e.Def.Name] = true
		}
		added = append(added, ps.entries...)
	}
	slices.SortFunc(added, compareEntries)
	for name := range affected {
		versions := t.holders(name)
		if len(versions) == 0 {
			delete(next.tools, name)
			continue
		}
		slices.SortFunc(versions, compareEntries)
		next.tools[name] = &toolSet{versions: versions, def: defaultOf(versions)}
	}

	// all: the old list without the changed providers, merged with their
	// served entries.
	next.all = make([]*Entry, 0, len(old.all)+len(added))
	i := 0
	for _, x := range old.all {
		if _, ch := t.changed[x.Provider.Info.ID]; ch {
			continue
		}
		for i < len(added) && compareEntries(added[i], x) < 0 {
			next.all = append(next.all, added[i])
			i++
		}
		next.all = append(next.all, x)
	}
	next.all = append(next.all, added[i:]...)
	next.sets = make([]*toolSet, 0, len(next.tools))
	next.setSigs = make([]sig, 0, len(next.tools))
	for k, e := range next.all {
		if k == 0 || e.Def.Name != next.all[k-1].Def.Name {
			next.sets = append(next.sets, next.tools[e.Def.Name])
			next.setSigs = append(next.setSigs, sig{})
		}
		u := &next.setSigs[len(next.setSigs)-1]
		for w := range u {
			u[w] |= e.sig[w]
		}
	}

	next.provs = make([]*ProviderRecord, 0, len(next.providers))
	for _, ps := range next.providers {
		next.provs = append(next.provs, ps.rec)
	}
	slices.SortFunc(next.provs, func(a, b *ProviderRecord) int { return strings.Compare(a.Info.ID, b.Info.ID) })
	return next
}

// providerEvent is the event of one provider's change from o to n (either
// nil: added or removed).
func providerEvent(id string, o, n *provState) Event {
	var oldEntries, newEntries []*Entry
	if o != nil {
		oldEntries = o.entries
	}
	if n != nil {
		newEntries = n.entries
	}
	ev := diff(oldEntries, newEntries)
	switch {
	case o == nil && n != nil:
		ev.Provider = &ProviderChange{ID: id, Name: n.rec.Info.Name, Version: n.rec.Info.Version, Action: "added"}
	case o != nil && n == nil:
		ev.Provider = &ProviderChange{ID: id, Name: o.rec.Info.Name, Version: o.rec.Info.Version, Action: "removed"}
	case o != nil && (len(ev.Added)+len(ev.Removed)+len(ev.Updated) > 0 || o.rec.Info.Name != n.rec.Info.Name ||
		o.rec.Info.Version != n.rec.Info.Version || o.rec.Info.Description != n.rec.Info.Description):
		ev.Provider = &ProviderChange{ID: id, Name: n.rec.Info.Name, Version: n.rec.Info.Version, Action: "updated"}
	}
	return ev
}
