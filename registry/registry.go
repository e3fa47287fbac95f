package registry

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/aios-host/aios-host/abi"
)

// Registry holds providers and their tools. The zero value is not usable;
// call New. All methods are safe for concurrent use.
type Registry struct {
	mu   sync.Mutex // serializes writers
	snap atomic.Pointer[snapshot]
	cons constraintCache
	subs subscribers

	// Guarded by mu.
	semver SemverCheck
	warn   func(SemverViolation)
	now    func() time.Time // registration time; UTC
}

// snapshot is an immutable view of the registry. Writers build a new one
// and publish it with one atomic store.
type snapshot struct {
	tools     map[string]*toolSet
	providers map[string]*provState
	all       []*Entry          // every entry, by name then version
	sets      []*toolSet        // every tool name, by name
	setSigs   []sig             // union of the signatures of sets[i]'s versions
	provs     []*ProviderRecord // by id
	memo      memo              // constraint resolutions against this snapshot
}

// toolSet is every registered version of one tool name.
type toolSet struct {
	versions []*Entry // ascending
	def      *Entry   // see defaultOf
}

type provState struct {
	rec     *ProviderRecord
	entries []*Entry // by name then version
}

// New returns an empty registry.
func New() *Registry {
	r := &Registry{}
	r.snap.Store(&snapshot{tools: map[string]*toolSet{}, providers: map[string]*provState{}, memo: newMemo()})
	r.cons.m = make(map[string]*semver.Constraints)
	r.subs.m = make(map[*subscriber]struct{})
	r.semver = SemverWarn
	r.now = func() time.Time { return time.Now().UTC() }
	return r
}

// Register adds provider p with its tools. It is all-or-nothing: on any
// error (an invalid name, version, level, capability or schema; a tool
// version registered twice; a provider id already registered; a tool
// version another provider already registered) nothing changes. Errors are
// *abi.ToolError with code InvalidRequest or Conflict.
func (r *Registry) Register(p *ProviderRecord, tools []abi.ToolDef) error {
	entries, err := newEntries(p, tools)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.snap.Load().providers[p.Info.ID]; ok {
		return abi.Errorf(abi.Conflict, "provider %s is already registered (use Replace to swap its tools)", p.Info.ID)
	}
	return r.apply(p.Info.ID, p, entries)
}

// Replace swaps the whole tool set of the provider with p's id for tools,
// atomically (hot reload): readers see either the old set or the new one.
// A provider not yet registered is registered. The event carries the tools
// added, removed and updated (same name@version, changed definition).
func (r *Registry) Replace(p *ProviderRecord, tools []abi.ToolDef) error {
	entries, err := newEntries(p, tools)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.apply(p.Info.ID, p, entries)
}

// Unregister removes a provider and all its tools; NotFound when unknown.
func (r *Registry) Unregister(providerID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.snap.Load().providers[providerID]; !ok {
		return abi.Errorf(abi.NotFound, "provider %q is not registered", providerID)
	}
	return r.apply(providerID, nil, nil)
}

// apply publishes a snapshot where provider id has exactly entries (and
// record rec; nil removes the provider). Called with r.mu held.
func (r *Registry) apply(id string, rec *ProviderRecord, entries []*Entry) error {
	old := r.snap.Load()
	for _, e := range entries {
		set := old.tools[e.Def.Name]
		if set == nil {
			continue
		}
		for _, x := range set.versions {
			if x.Provider.Info.ID == id {
				continue
			}
			if x.Version.Compare(e.Version) == 0 {
				te := abi.Errorf(abi.Conflict, "tool %s@%s from provider %s conflicts with the same tool version already registered by provider %s",
					e.Def.Name, e.ver, id, x.Provider.Info.ID)
				te.Data = map[string]any{"tool": e.Def.Name, "version": e.ver, "provider": id, "registered_by": x.Provider.Info.ID}
				return te
			}
			if rec.Trust < x.Provider.Trust {
				te := abi.Errorf(abi.Conflict, "tool %s is registered by provider %s (trust %s); provider %s (trust %s) may not add versions of it: "+
					"a less trusted provider could take over its callers. Give the tool another name, or the provider more trust",
					e.Def.Name, x.Provider.Info.ID, x.Provider.Trust, id, rec.Trust)
				te.Data = map[string]any{"tool": e.Def.Name, "version": e.ver, "provider": id, "trust": rec.Trust.String(),
					"registered_by": x.Provider.Info.ID, "registered_by_trust": x.Provider.Trust.String()}
				return te
			}
		}
	}
	var oldEntries []*Entry
	if ps := old.providers[id]; ps != nil {
		oldEntries = ps.entries
	}
	// A tool version this provider registers again with the very same
	// definition (a hot reload that did not change it) keeps its
	// registration time and SemVer verdict; a new or changed definition is
	// registered now, and checked.
	fresh := make([]*Entry, 0, len(entries))
	if len(entries) > 0 {
		oldBy := make(map[string]*Entry, len(oldEntries))
		for _, e := range oldEntries {
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

	next := &snapshot{
		tools:     make(map[string]*toolSet, len(old.tools)+len(entries)),
		providers: make(map[string]*provState, len(old.providers)+1),
		memo:      newMemo(),
	}
	for k, v := range old.providers {
		next.providers[k] = v
	}
	if rec == nil {
		delete(next.providers, id)
	} else {
		next.providers[id] = &provState{rec: rec, entries: entries}
	}
	for k, v := range old.tools {
		next.tools[k] = v
	}
	// The tools whose version sets change, with this provider's new
	// entries of each (grouped once: a provider may register many tools).
	affected := make(map[string][]*Entry, len(oldEntries)+len(entries))
	for _, e := range oldEntries {
		affected[e.Def.Name] = nil
	}
	for _, e := range entries {
		affected[e.Def.Name] = append(affected[e.Def.Name], e)
	}
	for name, mine := range affected {
		var versions []*Entry
		if set := old.tools[name]; set != nil {
			for _, x := range set.versions {
				if x.Provider.Info.ID != id {
					versions = append(versions, x)
				}
			}
		}
		versions = append(versions, mine...)
		if len(versions) == 0 {
			delete(next.tools, name)
			continue
		}
		slices.SortFunc(versions, compareEntries)
		next.tools[name] = &toolSet{versions: versions, def: defaultOf(versions)}
	}

	var violations []SemverViolation
	if r.semver != SemverOff && len(fresh) > 0 {
		// The versions this provider withdraws count as registered before:
		// a hot reload that replaces 1.0.0 with 1.1.0 is compared with it.
		kept := make(map[string]bool, len(entries))
		for _, e := range entries {
			kept[e.key()] = true
		}
		gone := map[string][]*Entry{}
		for _, e := range oldEntries {
			if !kept[e.key()] {
				gone[e.Def.Name] = append(gone[e.Def.Name], e)
			}
		}
		for _, e := range fresh {
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
				return semverError(v)
			}
			e.Violation = v
			violations = append(violations, *v)
		}
	}

	// all: the old list without this provider, merged with the new entries.
	next.all = make([]*Entry, 0, len(old.all)-len(oldEntries)+len(entries))
	i := 0
	for _, x := range old.all {
		if x.Provider.Info.ID == id {
			continue
		}
		for i < len(entries) && compareEntries(entries[i], x) < 0 {
			next.all = append(next.all, entries[i])
			i++
		}
		next.all = append(next.all, x)
	}
	next.all = append(next.all, entries[i:]...)
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

	r.snap.Store(next)
	if r.warn != nil {
		for _, v := range violations {
			r.warn(v)
		}
	}
	ev := diff(oldEntries, entries)
	ev.Violations = violations
	var oldRec *ProviderRecord
	if ps := old.providers[id]; ps != nil {
		oldRec = ps.rec
	}
	switch {
	case oldRec == nil && rec != nil:
		ev.Provider = &ProviderChange{ID: id, Name: rec.Info.Name, Version: rec.Info.Version, Action: "added"}
	case oldRec != nil && rec == nil:
		ev.Provider = &ProviderChange{ID: id, Name: oldRec.Info.Name, Version: oldRec.Info.Version, Action: "removed"}
	case oldRec != nil && (len(ev.Added)+len(ev.Removed)+len(ev.Updated) > 0 || oldRec.Info.Name != rec.Info.Name ||
		oldRec.Info.Version != rec.Info.Version || oldRec.Info.Description != rec.Info.Description):
		ev.Provider = &ProviderChange{ID: id, Name: rec.Info.Name, Version: rec.Info.Version, Action: "updated"}
	}
	if !ev.empty() {
		r.subs.publish(ev)
	}
	return nil
}

// defaultOf picks the version an empty constraint selects, among the
// versions of the most trusted providers that hold the name (see
// topTrust): the newest non-deprecated release; else the newest
// non-deprecated pre-release; else the newest version.
func defaultOf(versions []*Entry) *Entry {
	top := topTrust(versions)
	var pre, newest *Entry
	for i := len(versions) - 1; i >= 0; i-- {
		e := versions[i]
		if e.Provider.Trust != top {
			continue
		}
		if newest == nil {
			newest = e
		}
		if e.Def.Deprecated {
			continue
		}
		if e.Version.Prerelease() == "" {
			return e
		}
		if pre == nil {
			pre = e
		}
	}
	if pre != nil {
		return pre
	}
	return newest
}

// topTrust is the highest trust level among the providers of versions.
// Versions of one name from providers of different trust exist only when a
// less trusted provider registered the name first (a more trusted one may
// not be refused the name); resolution then prefers the more trusted
// provider's versions, so that the first to register a name cannot take
// over the callers of a trusted tool by offering a higher version.
func topTrust(versions []*Entry) abi.TrustLevel {
	top := versions[0].Provider.Trust
	for _, e := range versions[1:] {
		top = max(top, e.Provider.Trust)
	}
	return top
}

// diff computes the event for a provider whose entries changed from old
// to new (both sorted).
func diff(old, new []*Entry) Event {
	var ev Event
	oldBy := make(map[string]*Entry, len(old))
	for _, e := range old {
		oldBy[e.key()] = e
	}
	newBy := make(map[string]bool, len(new))
	for _, e := range new {
		k := e.key()
		newBy[k] = true
		o, ok := oldBy[k]
		switch {
		case !ok:
			ev.Added = append(ev.Added, e.Ref())
		case !reflect.DeepEqual(o.Def, e.Def):
			ev.Updated = append(ev.Updated, e.Ref())
		}
	}
	for _, e := range old {
		if !newBy[e.key()] {
			ev.Removed = append(ev.Removed, e.Ref())
		}
	}
	return ev
}

// Tools returns every registered tool version, sorted by name then version.
func (r *Registry) Tools() []*Entry {
	return slices.Clone(r.snap.Load().all)
}

// Versions returns every registered version of name, oldest first (nil when
// unknown).
func (r *Registry) Versions(name string) []*Entry {
	set := r.snap.Load().tools[name]
	if set == nil {
		return nil
	}
	return slices.Clone(set.versions)
}

// Providers returns every registered provider, sorted by id.
func (r *Registry) Providers() []*ProviderRecord {
	return slices.Clone(r.snap.Load().provs)
}

// Provider returns the provider with id, or nil.
func (r *Registry) Provider(id string) *ProviderRecord {
	if ps := r.snap.Load().providers[id]; ps != nil {
		return ps.rec
	}
	return nil
}

// ProviderTools returns the tools of provider id, by name then version.
func (r *Registry) ProviderTools(id string) []*Entry {
	if ps := r.snap.Load().providers[id]; ps != nil {
		return slices.Clone(ps.entries)
	}
	return nil
}
