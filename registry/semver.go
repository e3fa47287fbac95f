package registry

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/schema"
)

// SemverCheck says what a registration that breaks SemVer does: a tool
// version whose schemas break callers of the version below it (by any
// provider) without a major version increase (for 0.x versions: a minor
// one).
type SemverCheck string

// The SemVer check modes (config key registry.semver_check).
const (
	// SemverWarn registers the version and reports the violation: the
	// warn function, Entry.Violation, Event.Violations. The default.
	SemverWarn SemverCheck = "warn"
	// SemverRefuse refuses the registration (InvalidRequest).
	SemverRefuse SemverCheck = "refuse"
	// SemverOff does not compare versions at registration.
	SemverOff SemverCheck = "off"
)

// ParseSemverCheck reads a mode: warn, refuse or off.
func ParseSemverCheck(s string) (SemverCheck, error) {
	switch m := SemverCheck(s); m {
	case SemverWarn, SemverRefuse, SemverOff:
		return m, nil
	}
	return "", fmt.Errorf("semver check %q is not warn, refuse or off", s)
}

// SetSemverCheck sets what a SemVer violation does (see SemverCheck); warn,
// when not nil, is called with each violation registered in SemverWarn
// mode (with the registry's write lock held: it must not call back into
// the registry's writers). A new registry warns, with no function.
func (r *Registry) SetSemverCheck(mode SemverCheck, warn func(SemverViolation)) error {
	if _, err := ParseSemverCheck(string(mode)); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.semver, r.warn = mode, warn
	r.semverOn.Store(mode != SemverOff)
	return nil
}

// SemverViolation is a tool version whose schemas break callers of the
// version below it although its major version (for 0.x: its minor) did not
// increase.
type SemverViolation struct {
	Tool             string `json:"tool"`
	Version          string `json:"version"`
	Provider         string `json:"provider"`
	Previous         string `json:"previous"`
	PreviousProvider string `json:"previous_provider"`
	// Changes are the breaking changes, paths starting with /parameters or
	// /returns.
	Changes []schema.Change `json:"changes"`
}

// maxListed bounds the changes a message lists.
const maxListed = 3

func (v *SemverViolation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tool %s@%s (provider %s) breaks callers of %s@%s (provider %s) without a major version increase: ",
		v.Tool, v.Version, v.Provider, v.Tool, v.Previous, v.PreviousProvider)
	for i, c := range v.Changes {
		if i == maxListed {
			fmt.Fprintf(&b, "; and %d more", len(v.Changes)-maxListed)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(c.String())
	}
	return b.String()
}

// FirstChanges renders the first few breaking changes, for logs.
func (v *SemverViolation) FirstChanges() []string {
	out := make([]string, 0, min(len(v.Changes), maxListed))
	for _, c := range v.Changes[:min(len(v.Changes), maxListed)] {
		out = append(out, c.String())
	}
	return out
}

// ToolDiff is what changed between two versions of a tool.
type ToolDiff struct {
	Tool         string `json:"tool"`
	From         string `json:"from"`
	To           string `json:"to"`
	FromProvider string `json:"from_provider"`
	ToProvider   string `json:"to_provider"`
	// Breaking is true when a change breaks callers of From.
	Breaking bool `json:"breaking"`
	// Changes of the parameters schema (paths under /parameters) then of
	// the returns schema (/returns); never nil.
	Changes []schema.Change `json:"changes"`
}

// DiffEntries compares the schemas of two tool versions (usually of one
// tool: from older, to newer). It is nil when from or to is nil.
func DiffEntries(from, to *Entry) *ToolDiff {
	if from == nil || to == nil {
		return nil
	}
	d := &ToolDiff{Tool: to.Def.Name, From: from.ver, To: to.ver,
		FromProvider: from.Provider.Info.ID, ToProvider: to.Provider.Info.ID, Changes: []schema.Change{}}
	for _, part := range []struct {
		prefix   string
		old, new map[string]any
		dir      schema.Direction
	}{{"/parameters", from.Def.Parameters, to.Def.Parameters, schema.Params}, {"/returns", from.Def.Returns, to.Def.Returns, schema.Returns}} {
		for _, c := range schema.Diff(part.old, part.new, part.dir) {
			c.Path = part.prefix + c.Path
			d.Changes = append(d.Changes, c)
		}
	}
	d.Breaking = schema.Breaking(d.Changes)
	return d
}

// Diff compares two registered versions of tool name. to is an exact
// version, "" for the newest; from is an exact version, "" for the version
// just below to. Errors: NotFound for an unknown tool (with suggestions),
// an unknown version (listing the available ones) or no version below to;
// InvalidParams for a version that is not SemVer.
func (r *Registry) Diff(name, from, to string) (*ToolDiff, error) {
	s := r.snap.Load()
	set := s.tools.get(name)
	if set == nil {
		return nil, notFoundTool(s, name)
	}
	vs := set.versions
	find := func(which, v string) (int, error) {
		want, err := semver.StrictNewVersion(v)
		v = clipConstraint(v) // as the errors show it
		if err != nil {
			te := abi.Errorf(abi.InvalidParams, "%s version %q of tool %s is not a SemVer version (want e.g. 1.2.3): %v", which, v, name, err)
			te.Data = map[string]any{"tool": name, which: v}
			return 0, te
		}
		for i, e := range vs {
			if e.Version.Equal(want) {
				return i, nil
			}
		}
		te := abi.Errorf(abi.NotFound, "tool %s has no version %s (available: %s)", name, v, joinVersions(versionList(vs)))
		te.Data = map[string]any{"tool": name, which: v, "available": versionList(vs)}
		return 0, te
	}
	ti := len(vs) - 1
	if to != "" {
		var err error
		if ti, err = find("to", to); err != nil {
			return nil, err
		}
	}
	var fi int
	if from == "" {
		if ti == 0 {
			te := abi.Errorf(abi.NotFound, "tool %s has no version below %s to compare with (available: %s)", name, vs[ti].ver, joinVersions(versionList(vs)))
			te.Data = map[string]any{"tool": name, "to": vs[ti].ver, "available": versionList(vs)}
			return nil, te
		}
		fi = ti - 1
	} else {
		var err error
		if fi, err = find("from", from); err != nil {
			return nil, err
		}
	}
	return DiffEntries(vs[fi], vs[ti]), nil
}

func versionList(vs []*Entry) []string {
	out := make([]string, len(vs))
	for i, e := range vs {
		out[i] = e.ver
	}
	return out
}

// semverBump reports whether cur may break callers of prev: a higher major
// version, or for 0.x versions a higher minor one.
func semverBump(prev, cur *semver.Version) bool {
	if cur.Major() != prev.Major() {
		return cur.Major() > prev.Major()
	}
	return cur.Major() == 0 && cur.Minor() > prev.Minor()
}

// checkSemver compares e, a version being registered, with the newest
// release below it among versions (every version of its name after the
// registration, ascending), and the oldest release above it of the same
// major with e (which must not break e's callers: the violation then
// names that release); nil when there is none, when e is a pre-release
// (no compatibility promise), or when the changes are allowed. The schema
// diffs come from pc when it has them (see prepare).
func checkSemver(e *Entry, versions []*Entry, pc *pairCache) *SemverViolation {
	if e.Version.Prerelease() != "" {
		return nil
	}
	i, _ := slices.BinarySearchFunc(versions, e, func(x, t *Entry) int { return x.Version.Compare(t.Version) })
	var prev *Entry
	for j := i - 1; j >= 0; j-- {
		// A less trusted provider's version is no promise e must keep: an
		// Untrusted t@1.0.0 registered first must not get a System
		// t@1.1.0 refused.
		if versions[j].Provider.Trust < e.Provider.Trust {
			continue
		}
		if versions[j].Version.Prerelease() == "" && versions[j].Version.LessThan(e.Version) {
			prev = versions[j]
			break
		}
	}
	if prev != nil && !semverBump(prev.Version, e.Version) {
		if d := pc.diff(prev, e); d.Breaking {
			return violation(e, prev, d)
		}
	}
	// e inserted below a release of the same major (1.1.0 between 1.0.0
	// and 1.2.0): that release must not break e's callers either.
	for j := i; j < len(versions); j++ {
		x := versions[j]
		if x == e || x.Provider.Trust < e.Provider.Trust || x.Version.Prerelease() != "" || !e.Version.LessThan(x.Version) {
			continue
		}
		if semverBump(e.Version, x.Version) {
			break
		}
		if d := pc.diff(e, x); d.Breaking {
			return violation(x, e, d)
		}
		break
	}
	return nil
}

// checkRedefinition compares e with prev, the definition of the same
// version that its provider served before (nil when none): a release whose
// new definition breaks callers of its old one is a violation, whatever
// the versions around it (SemVer §3: a released version's contents do not
// change). Pre-releases promise nothing, and neither does a version the
// provider did not declare (an MCP server's tools have none).
func checkRedefinition(prev, e *Entry, pc *pairCache) *SemverViolation {
	if prev == nil || prev == e || e.Version.Prerelease() != "" || prev.implicit || e.implicit {
		return nil
	}
	if d := pc.diff(prev, e); d.Breaking {
		return violation(e, prev, d)
	}
	return nil
}

// violation is cur breaking callers of prev as d says.
func violation(cur, prev *Entry, d *ToolDiff) *SemverViolation {
	v := &SemverViolation{Tool: cur.Def.Name, Version: cur.ver, Provider: cur.Provider.Info.ID,
		Previous: prev.ver, PreviousProvider: prev.Provider.Info.ID}
	for _, c := range d.Changes {
		if c.Breaking {
			v.Changes = append(v.Changes, c)
		}
	}
	return v
}

// freeMajor is the first major version from m that none of versions has:
// the advice of a refusal named 2.0.0 when 2.0.0 was registered already.
func freeMajor(m uint64, versions []*Entry) uint64 {
	for slices.ContainsFunc(versions, func(x *Entry) bool { return x.Version.Major() == m }) {
		m++
	}
	return m
}

// semverError is the refusal of a violating registration, e the version
// registered that v was found for, versions those of its name it was
// checked with (a release advised is none of theirs).
func semverError(v *SemverViolation, e *Entry, versions []*Entry) *abi.ToolError {
	if v.Provider != e.Provider.Info.ID {
		// e was inserted below another provider's release that breaks
		// its callers: e is refused, and its provider can change e, not
		// that release. The message said "release it as 2.0.0, or keep
		// the old schema" of the release, naming e only as the one broken.
		te := abi.Errorf(abi.InvalidRequest, "%s (registry.semver_check is refuse: %s@%s of provider %s is refused, as the release above it would break its callers; "+
			"give it a schema %s@%s keeps, or another version)", v.String(), e.Def.Name, e.ver, e.Provider.Info.ID, v.Tool, v.Version)
		te.Data = map[string]any{"tool": v.Tool, "version": v.Version, "provider": v.Provider, "previous": v.Previous,
			"previous_provider": v.PreviousProvider, "changes": v.Changes, "refused": e.Def.Name + "@" + e.ver}
		return te
	}
	next := "a higher major version"
	if p, err := semver.NewVersion(v.Previous); err == nil {
		next = fmt.Sprintf("%d.0.0", freeMajor(p.Major()+1, versions))
		if p.Major() == 0 {
			minor := p.Minor() + 1
			for slices.ContainsFunc(versions, func(x *Entry) bool { return x.Version.Major() == 0 && x.Version.Minor() == minor }) {
				minor++
			}
			next = fmt.Sprintf("0.%d.0 or %d.0.0", minor, freeMajor(1, versions))
		}
	}
	te := abi.Errorf(abi.InvalidRequest, "%s (registry.semver_check is refuse: release it as %s, or keep the old schema)", v.String(), next)
	te.Data = map[string]any{"tool": v.Tool, "version": v.Version, "provider": v.Provider, "previous": v.Previous,
		"previous_provider": v.PreviousProvider, "changes": v.Changes}
	return te
}

// pairCache holds what a registration computed about pairs of entries
// before taking the write lock (prepare): schema diffs for the SemVer
// check, and whether two definitions are equal. Entries are immutable, so
// a pair's result never changes: under the lock a pair computed before is
// reused, and one that was not (the registry changed in between, so other
// versions are compared) is computed then. A nil *pairCache computes
// every pair.
type pairCache struct {
	diffs map[[2]*Entry]*ToolDiff
	same  map[[2]*Entry]bool
	// locked, when set, counts the pairs computed under the lock
	// (Registry.lockedPairs, for tests).
	locked *int
}

// diff is DiffEntries(from, to).
func (pc *pairCache) diff(from, to *Entry) *ToolDiff {
	if pc == nil {
		return DiffEntries(from, to)
	}
	k := [2]*Entry{from, to}
	if d, ok := pc.diffs[k]; ok {
		return d
	}
	d := DiffEntries(from, to)
	if pc.locked != nil {
		*pc.locked++
	}
	if pc.diffs == nil {
		pc.diffs = map[[2]*Entry]*ToolDiff{}
	}
	pc.diffs[k] = d
	return d
}

// equal reports whether a and b have the same definition.
func (pc *pairCache) equal(a, b *Entry) bool {
	if a == b {
		return true
	}
	if pc == nil {
		return reflect.DeepEqual(a.Def, b.Def)
	}
	k := [2]*Entry{a, b}
	if eq, ok := pc.same[k]; ok {
		return eq
	}
	eq := reflect.DeepEqual(a.Def, b.Def)
	if pc.locked != nil {
		*pc.locked++
	}
	if pc.same == nil {
		pc.same = map[[2]*Entry]bool{}
	}
	pc.same[k] = eq
	return eq
}

// prepare computes, without the write lock and against the published
// snapshot, what apply will likely compare for provider id registering
// entries (dropping drop): whether each entry redefines a version id
// registered before, and the schema diffs of the SemVer check of the
// others (against the versions of their names the snapshot serves,
// without id's and drop's, plus id's withdrawn ones). A diff of megabytes
// of schema then does not hold the lock that every registration takes.
func (r *Registry) prepare(id, drop string, entries []*Entry) *pairCache {
	pc := &pairCache{}
	if len(entries) == 0 {
		return pc
	}
	s := r.snap.Load()
	var oldDeclared []*Entry
	if ps := s.providers.get(id); ps != nil {
		oldDeclared = ps.all()
	}
	oldBy := make(map[string]*Entry, len(oldDeclared))
	for _, o := range oldDeclared {
		oldBy[o.key()] = o
	}
	fresh := map[string][]*Entry{} // name → the entries the check compares
	kept := make(map[string]bool, len(entries))
	for _, e := range entries {
		kept[e.key()] = true
		if o := oldBy[e.key()]; o != nil && pc.equal(o, e) {
			continue
		}
		fresh[e.Def.Name] = append(fresh[e.Def.Name], e)
	}
	if !r.semverOn.Load() {
		return pc
	}
	for _, es := range fresh {
		for _, e := range es {
			if o := oldBy[e.key()]; o != nil {
				checkRedefinition(o, e, pc) // a redefinition: see apply
			}
		}
	}
	for name, es := range fresh {
		var versions []*Entry
		if set := s.tools.get(name); set != nil {
			for _, x := range set.versions {
				if pid := x.Provider.Info.ID; pid != id && pid != drop {
					versions = append(versions, x)
				}
			}
		}
		for _, e := range entries {
			if e.Def.Name == name {
				versions = append(versions, e)
			}
		}
		for _, o := range oldDeclared {
			if o.Def.Name == name && !kept[o.key()] {
				versions = append(versions, o)
			}
		}
		slices.SortFunc(versions, compareEntries)
		for _, e := range es {
			checkSemver(e, versions, pc)
		}
	}
	return pc
}
