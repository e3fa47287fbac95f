package registry

import (
	"iter"
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

	semverOn atomic.Bool // semver != SemverOff, read without mu (prepare)

	// Guarded by mu.
	semver SemverCheck
	warn   func(SemverViolation)
	now    func() time.Time // registration time; UTC
	// lockedPairs counts the schema diffs and definition comparisons
	// computed with mu held (pairCache), for tests.
	lockedPairs int
	// compactAfter is how long after the last write the overlays' deltas
	// are folded (compact); 0: never. compactTimer is its timer.
	compactAfter time.Duration
	compactTimer *time.Timer
	// work counts the map entries copied and the entries visited by
	// writes, for the tests that guard against quadratic registration.
	work int
}

// snapshot is an immutable view of the registry. Writers build a new one
// and publish it with one atomic store.
//
// A write costs about what it changes, not the registry's size: the maps
// are overlays (overlay.go) and the sorted lists are chunked sequences
// (seq.go) patched with the changed providers' entries (tx.build), so
// that registering then removing thousands of providers one by one is not
// quadratic. compact may republish a snapshot with its overlays folded:
// the same content and memo.
type snapshot struct {
	tools     overlay[toolSet]
	providers overlay[provState]
	all       seq[*Entry]          // every entry, by name then version
	sets      seq[*toolSet]        // every tool name, by name
	setSigs   seq[sig]             // union of the signatures of sets' versions, chunked as sets
	provs     seq[*ProviderRecord] // by id
	memo      memo                 // constraint resolutions against this snapshot
	// shadowIdx is, for each tool name, the ids of the providers with
	// shadowed versions of it: what a write that changes the name's
	// holders must reconsider (tx.restore).
	shadowIdx overlay[map[string]bool]
}

// toolSet is every registered version of one tool name.
type toolSet struct {
	versions []*Entry // ascending
	def      *Entry   // see defaultOf
}

type provState struct {
	rec     *ProviderRecord
	entries []*Entry // the served tool versions, by name then version
	// declared is every tool version the provider registered, served or
	// not (by name then version); nil when it is entries. The others are
	// shadowed: displaced by a more trusted provider's same version, or
	// left out by a partial registration. They are served again when what
	// shadows them goes (apply.go).
	declared []*Entry
}

// all is every tool version the provider registered.
func (ps *provState) all() []*Entry {
	if ps.declared != nil {
		return ps.declared
	}
	return ps.entries
}

// New returns an empty registry.
func New() *Registry {
	r := &Registry{}
	r.snap.Store(&snapshot{tools: newOverlay[toolSet](), providers: newOverlay[provState](), shadowIdx: newOverlay[map[string]bool](), memo: newMemo()})
	r.cons.m = make(map[string]*semver.Constraints)
	r.subs.m = make(map[*subscriber]struct{})
	r.semver = SemverWarn
	r.semverOn.Store(true)
	r.now = func() time.Time { return time.Now().UTC() }
	r.compactAfter = defaultCompactAfter
	return r
}

// defaultCompactAfter is Registry.compactAfter: a host registers its
// providers in a burst at start and on reloads.
const defaultCompactAfter = 200 * time.Millisecond

// published is called, with mu held, after a write published s: when s's
// overlays have deltas (a lookup then tests a filter, and sometimes the
// delta, before the base), they are folded once no write came for
// compactAfter, so that a registry at rest resolves a name with one map
// lookup. A fold costs a pass over the names; it runs at most once per
// compactAfter.
func (r *Registry) published(s *snapshot) {
	if r.compactAfter <= 0 || !s.hasDeltas() {
		return
	}
	if r.compactTimer == nil {
		r.compactTimer = time.AfterFunc(r.compactAfter, r.compact)
		return
	}
	r.compactTimer.Reset(r.compactAfter)
}

// hasDeltas reports whether one of s's overlays has a delta to fold.
func (s *snapshot) hasDeltas() bool {
	return s.tools.delta != nil || s.providers.delta != nil || s.shadowIdx.delta != nil
}

// compact publishes the snapshot with its overlays folded: the same
// content (and so the same memo of resolutions), one map per lookup.
func (r *Registry) compact() {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.snap.Load()
	if !s.hasDeltas() {
		return
	}
	c := *s
	c.tools, c.providers, c.shadowIdx = s.tools.folded(), s.providers.folded(), s.shadowIdx.folded()
	r.work += s.tools.len() + s.providers.len() + s.shadowIdx.len()
	r.snap.Store(&c)
}

// Register adds provider p with its tools. It is all-or-nothing: on any
// error (an invalid name, version, level, capability or schema; a tool
// version registered twice; a provider id already registered; a tool
// version another provider of the same trust already registered; a less
// trusted provider adding versions of a more trusted one's tool) nothing
// changes. A tool version a provider of another trust level holds is
// shadowed, not refused: see Apply. Errors are *abi.ToolError with code
// InvalidRequest or Conflict.
func (r *Registry) Register(p *ProviderRecord, tools []abi.ToolDef) error {
	_, err := r.Apply(p, tools, Options{})
	return err
}

// Replace swaps the whole tool set of the provider with p's id for tools,
// atomically (hot reload): readers see either the old set or the new one.
// A provider not yet registered is registered. The event carries the tools
// added, removed and updated (same name@version, changed definition).
func (r *Registry) Replace(p *ProviderRecord, tools []abi.ToolDef) error {
	_, err := r.Apply(p, tools, Options{Replace: true})
	return err
}

// Unregister removes a provider and all its tools; NotFound when unknown.
// Tool versions of other providers that the provider shadowed are served
// again in the same snapshot.
func (r *Registry) Unregister(providerID string) error {
	_, err := r.Remove(providerID)
	return err
}

// Remove is Unregister, reporting the tool versions of other providers
// served again.
func (r *Registry) Remove(providerID string) (Report, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.snap.Load().providers.get(providerID) == nil {
		return Report{}, abi.Errorf(abi.NotFound, "provider %q is not registered", providerID)
	}
	return r.apply(providerID, nil, nil, false, "", nil)
}

// apply: see apply.go.

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
func diff(old, new []*Entry, pc *pairCache) Event {
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
		case !pc.equal(o, e):
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
	return r.snap.Load().all.slice()
}

// ToolsAfter yields, from one snapshot and in Tools' order (by name, then
// version), the tool versions after name@version; from the first when
// name is "", from name's first version when version is nil. A reader paging through the list (tools/list) seeks to where
// the page before ended, by binary search, instead of copying and skipping
// every tool listed before it: listing 10 000 tools a page at a time was
// quadratic.
func (r *Registry) ToolsAfter(name string, version *semver.Version) iter.Seq[*Entry] {
	s := r.snap.Load()
	return func(yield func(*Entry) bool) {
		var p pos
		if name != "" {
			var found bool
			p, found = seek(s.all, name, func(e *Entry, name string) int {
				if c := strings.Compare(e.Def.Name, name); c != 0 || version == nil {
					return c
				}
				return e.Version.Compare(version)
			})
			if found && version != nil {
				p.off++
			}
		}
		s.all.from(p, yield)
	}
}

// DefaultsAfter yields, from one snapshot and by name, the default
// version (Resolve(name, "")) of each tool name after name; from the
// first name when name is "". Paging by name lists each name once, also
// when its default version moved up since the page before.
func (r *Registry) DefaultsAfter(name string) iter.Seq[*Entry] {
	s := r.snap.Load()
	return func(yield func(*Entry) bool) {
		var p pos
		if name != "" {
			var found bool
			p, found = seek(s.sets, name, func(set *toolSet, name string) int { return strings.Compare(set.versions[0].Def.Name, name) })
			if found {
				p.off++
			}
		}
		s.sets.from(p, func(set *toolSet) bool { return yield(set.def) })
	}
}

// Versions returns every registered version of name, oldest first (nil when
// unknown).
func (r *Registry) Versions(name string) []*Entry {
	set := r.snap.Load().tools.get(name)
	if set == nil {
		return nil
	}
	return slices.Clone(set.versions)
}

// Providers returns every registered provider, sorted by id.
func (r *Registry) Providers() []*ProviderRecord {
	return r.snap.Load().provs.slice()
}

// Provider returns the provider with id, or nil.
func (r *Registry) Provider(id string) *ProviderRecord {
	if ps := r.snap.Load().providers.get(id); ps != nil {
		return ps.rec
	}
	return nil
}

// ProviderTools returns the served tools of provider id, by name then
// version (not those shadowed: see Shadowed).
func (r *Registry) ProviderTools(id string) []*Entry {
	if ps := r.snap.Load().providers.get(id); ps != nil {
		return slices.Clone(ps.entries)
	}
	return nil
}
