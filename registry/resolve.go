package registry

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/editdist"
)

// maxCachedConstraints bounds the parsed-constraint cache; maxMemo bounds
// the resolutions remembered per snapshot.
const (
	maxCachedConstraints = 256
	maxMemo              = 4096
)

// memo remembers which entry a (name, constraint) pair resolved to in one
// snapshot; a new snapshot starts with an empty memo, so it never goes
// stale. Checking a constraint allocates (Masterminds builds an error per
// failed comparison); the memo makes repeated resolutions allocation-free.
type memo struct {
	mu *sync.RWMutex
	m  map[memoKey]*Entry
}

type memoKey struct{ name, constraint string }

func newMemo() memo { return memo{mu: new(sync.RWMutex), m: make(map[memoKey]*Entry)} }

func (m memo) get(name, constraint string) *Entry {
	m.mu.RLock()
	e := m.m[memoKey{name, constraint}]
	m.mu.RUnlock()
	return e
}

func (m memo) put(name, constraint string, e *Entry) {
	m.mu.Lock()
	if len(m.m) < maxMemo {
		m.m[memoKey{name, constraint}] = e
	}
	m.mu.Unlock()
}

// Resolve returns the version of tool name that constraint selects:
//
//   - "" selects the default: the newest non-deprecated release (a
//     pre-release only when no release qualifies), or the newest version
//     when every version is deprecated;
//   - an exact version ("1.2.3") selects that version, deprecated or not;
//   - a Masterminds constraint ("^1.2", "~1.4", ">=1.0, <2.0", "1.x")
//     selects the newest matching non-deprecated version, or the newest
//     matching one when all matches are deprecated; as in Masterminds,
//     pre-releases match only constraints that mention a pre-release.
//
// When providers of different trust hold the name, "" and constraints
// choose among the most trusted providers' versions first (topTrust); an
// exact version selects that version whoever registered it.
//
// Errors: NotFound for an unknown name (with close names as suggestions)
// or when no version matches (listing the available ones); InvalidParams
// for a malformed constraint. The common case (empty constraint) takes no
// lock and allocates nothing.
func (r *Registry) Resolve(name, constraint string) (*Entry, error) {
	s := r.snap.Load()
	set := s.tools.get(name)
	if set == nil {
		return nil, notFoundTool(s, name)
	}
	if constraint == "" {
		return set.def, nil
	}
	for _, e := range set.versions {
		if e.ver == constraint {
			return e, nil
		}
	}
	if e := s.memo.get(name, constraint); e != nil {
		return e, nil
	}
	c, err := r.cons.get(constraint)
	if err != nil {
		shown := clipConstraint(constraint)
		// The parser's reason (an improper range, too many || groups),
		// clipped as it may quote the constraint; "too long" only for one
		// past the parser's limit, which a constraint of 129 to 512 bytes
		// with a typo was told.
		msg := clipConstraint(constraintReason(constraint, err))
		if errors.Is(err, semver.ErrConstraintTooLong) {
			msg = fmt.Sprintf("longer than a constraint can be (at most %d bytes)", semver.MaxConstraintLen)
		}
		te := abi.Errorf(abi.InvalidParams, "invalid version constraint %q for tool %s: %s (want e.g. 1.2.3, ^1.2, ~1.4, >=1.0, <2.0)", shown, name, msg)
		te.Data = map[string]any{"tool": name, "constraint": shown}
		return nil, te
	}
	// The most trusted providers' versions first (see topTrust); a less
	// trusted provider's version is selected only when none of theirs
	// matches.
	for tier := topTrust(set.versions); tier >= abi.Untrusted; tier-- {
		var best *Entry
		for i := len(set.versions) - 1; i >= 0; i-- {
			e := set.versions[i]
			if e.Provider.Trust != tier || !c.Check(e.Version) {
				continue
			}
			if !e.Def.Deprecated {
				s.memo.put(name, constraint, e)
				return e, nil
			}
			if best == nil {
				best = e
			}
		}
		if best != nil {
			s.memo.put(name, constraint, best)
			return best, nil
		}
	}
	avail := make([]string, len(set.versions))
	for i, e := range set.versions {
		avail[i] = e.ver
	}
	// The constraint clipped as an invalid one is (a valid one may be 512
	// bytes, of spaces mostly).
	shown := clipConstraint(constraint)
	msg := fmt.Sprintf("no version of tool %s matches %q (available: %s)", name, shown, joinVersions(avail))
	data := map[string]any{"tool": name, "constraint": shown, "available": avail}
	if sh := shadowedMatching(s, name, c); len(sh) > 0 {
		// A loaded provider offers them: say why they are not served.
		msg += "; " + joinFirst(sh) + " shadowed: registered but not served, as a more trusted provider (or the one registered first) serves the name (docs/registry.md)"
		data["shadowed"] = sh
	}
	te := abi.Errorf(abi.NotFound, "%s", msg)
	te.Data = data
	return nil, te
}

// shadowedMatching is, as "name@version (provider)", the shadowed versions
// of name (registered, not served) that c matches.
func shadowedMatching(s *snapshot, name string, c *semver.Constraints) []string {
	ids := s.shadowIdx.get(name)
	if ids == nil {
		return nil
	}
	var out []string
	for _, id := range slices.Sorted(maps.Keys(*ids)) {
		ps := s.providers.get(id)
		if ps == nil || ps.declared == nil {
			continue
		}
		for _, e := range ps.declared {
			if e.Def.Name == name && !slices.Contains(ps.entries, e) && c.Check(e.Version) {
				out = append(out, name+"@"+e.ver+" ("+id+")")
			}
		}
	}
	return out
}

// constraintReason is why constraint did not parse, err the parser's error.
// For a version that has the form but not the value (a number past
// 2^64-1, a pre-release identifier with a leading zero: 1.0.0-01) the
// parser says only "constraint parser error", which names nothing: the
// version's own error is given instead, naming it.
func constraintReason(constraint string, err error) string {
	msg := err.Error()
	if msg != "constraint parser error" {
		return msg
	}
	for _, f := range strings.FieldsFunc(constraint, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' || r == '|' }) {
		v := strings.TrimLeft(f, "=<>!~^")
		if v == "" || v == "-" || strings.ContainsAny(v, "xX*") {
			continue // an operator apart, a hyphen range, a wildcard
		}
		if _, verr := semver.NewVersion(v); verr != nil {
			return fmt.Sprintf("version %q in it: %v", v, verr)
		}
	}
	return msg
}

// maxShownVersions bounds the versions an error's message lists (its
// Data lists them all): a provider may register thousands of versions of
// one name, and a call asking for one that is not there was told every
// one of them (5 000 versions: a message of 49 KB).
const maxShownVersions = 16

// joinVersions lists versions (ascending) as a message shows them: all of
// them, or how many older ones there are and the newest maxShownVersions.
func joinVersions(versions []string) string {
	if len(versions) <= maxShownVersions {
		return strings.Join(versions, ", ")
	}
	return strconv.Itoa(len(versions)-maxShownVersions) + " older, " + strings.Join(versions[len(versions)-maxShownVersions:], ", ")
}

// joinFirst lists items as a message shows them: the first
// maxShownVersions and how many more there are.
func joinFirst(items []string) string {
	if len(items) <= maxShownVersions {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:maxShownVersions], ", ") + " and " + strconv.Itoa(len(items)-maxShownVersions) + " more"
}

// maxShownConstraint bounds how much of a constraint an error repeats: a
// caller's 8 MB string came back whole in the message and in its data.
const maxShownConstraint = 128

// clipConstraint is constraint as an error shows it.
func clipConstraint(c string) string {
	if len(c) <= maxShownConstraint {
		return c
	}
	return strings.ToValidUTF8(c[:maxShownConstraint], "") + "…(" + strconv.Itoa(len(c)) + " bytes)"
}

func notFoundTool(s *snapshot, name string) *abi.ToolError {
	if base, ver, ok := strings.Cut(name, "@"); ok && base != "" && ver != "" && s.tools.get(base) != nil {
		// "echo@1.0.0", the version written into the name as a package
		// manager takes it: it was told "did you mean echo?", not where
		// the version goes (found by p194). No tool name holds "@".
		shown := clipConstraint(ver)
		te := abi.Errorf(abi.NotFound, "tool %q not found: a tool's name holds no version; call tool %q with the version %q given apart (the call's version member, --version on the command line)", clipConstraint(name), base, shown)
		te.Data = map[string]any{"tool": clipConstraint(name), "name": base, "version": shown}
		return te
	}
	sugg := suggest(s, name, 3)
	name = clipConstraint(name)                   // (a caller's name of megabytes, as a constraint)
	msg := fmt.Sprintf("tool %q not found", name) // quoted: a name holding a quote or a newline read as two
	if len(sugg) > 0 {
		msg += "; did you mean " + strings.Join(sugg, ", ") + "?"
	}
	te := abi.Errorf(abi.NotFound, "%s", msg)
	te.Data = map[string]any{"tool": name}
	if len(sugg) > 0 {
		te.Data = map[string]any{"tool": name, "suggestions": sugg}
	}
	return te
}

// suggest returns up to n registered names close to name (editdist.Near).
func suggest(s *snapshot, name string, n int) []string {
	return editdist.Near(name, func(yield func(string) bool) {
		for k := range s.tools.all {
			if !yield(k) {
				return
			}
		}
	}, n)
}

// constraintCache keeps parsed constraints, bounded; when full, an
// arbitrary entry is evicted.
type constraintCache struct {
	mu sync.Mutex
	m  map[string]*semver.Constraints
}

func (c *constraintCache) get(s string) (*semver.Constraints, error) {
	c.mu.Lock()
	cs, ok := c.m[s]
	c.mu.Unlock()
	if ok {
		return cs, nil
	}
	cs, err := semver.NewConstraint(s)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= maxCachedConstraints {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[s] = cs
	c.mu.Unlock()
	return cs, nil
}
