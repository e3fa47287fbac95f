package registry

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/schema"
)

// DefaultVersion is the version of a tool that declares none.
const DefaultVersion = "1.0.0"

// DefaultPermission is the permission level of a tool that declares none:
// neither assumed harmless (public, low) nor dangerous (high, critical).
const DefaultPermission = abi.PermissionMedium

// DefaultLatency is the latency class of a tool that declares none.
const DefaultLatency = abi.LatencyNormal

// ProviderRecord is a registered provider: what it said about itself, the
// trust level and grants the host gave it, its implementation and where it
// was loaded from.
type ProviderRecord struct {
	Info   abi.ProviderInfo
	Trust  abi.TrustLevel
	Grants abi.Grants
	Impl   abi.Provider
	Source string
}

// Entry is one registered tool version. Entries are immutable once
// registered; callers must not modify them.
type Entry struct {
	// Def is the definition as registered, with Version, PermissionLevel and
	// LatencyClass filled with their defaults, and Deprecated set when
	// Deprecation is present.
	Def      abi.ToolDef
	Version  *semver.Version
	Provider *ProviderRecord
	// Params validates call parameters, Returns validates results; both
	// accept anything when the schema is absent.
	Params, Returns *schema.Validator
	// Caps are the parsed Def.CapabilityRequired.
	Caps []abi.Capability
	// RegisteredAt is when this definition was registered (UTC): set at
	// registration, kept when the same provider registers the same
	// name@version again with an identical definition (a hot reload that
	// did not change it), renewed when the definition changed or the
	// version was unregistered in between. The host sets it, never the
	// provider (it is not in abi.ToolDef).
	RegisteredAt time.Time
	// Violation is set when this version broke callers of the version
	// below it without a major version increase and the registry's SemVer
	// check warns (see SemverCheck); nil otherwise.
	Violation *SemverViolation

	ver  string // Version.String(), for exact-version lookups without parsing
	hay  string // lower-cased name \x00 tags \x00 description, examples
	nEnd int    // end of the name in hay
	tEnd int    // end of the tags in hay
	// prov is the lower-cased provider name \x00 id, one string shared by
	// every entry of a registration (see provText).
	prov string
	sig  sig // bytes and byte pairs present in hay and prov
	// implicit: the provider declared no version (DefaultVersion was
	// filled in), so a redefinition breaks no promise (an MCP server's
	// tools have no versions).
	implicit bool
}

// sig is a 256-bit signature of the bytes and byte pairs of a text. A token
// can occur in a text only if its signature is contained in the text's, so
// Search skips most entries with four AND operations.
type sig [4]uint64

func (s *sig) set(h uint32) { s[h>>6] |= 1 << (h & 63) }

func signature(text string) sig {
	var s sig
	for i := 0; i < len(text); i++ {
		s.set(uniHash(text[i]))
		if i+1 < len(text) {
			s.set(pairHash(text[i], text[i+1]))
		}
	}
	return s
}

func uniHash(a byte) uint32 { return (uint32(a) * 0x85EBCA6B) >> 24 }

func pairHash(a, b byte) uint32 { return ((uint32(a)<<8 | uint32(b)) * 0x9E3779B1) >> 24 }

// contains reports whether every bit of t is set in s.
func (s *sig) contains(t *sig) bool {
	return s[0]&t[0] == t[0] && s[1]&t[1] == t[1] && s[2]&t[2] == t[2] && s[3]&t[3] == t[3]
}

// Ref returns the entry's name, version and provider id.
func (e *Entry) Ref() ToolRef {
	return ToolRef{Name: e.Def.Name, Version: e.ver, ProviderID: e.Provider.Info.ID}
}

// ToolRef names one tool version of one provider.
type ToolRef struct {
	Name       string `json:"name"`
	Version    string `json:"version"`
	ProviderID string `json:"provider_id"`
}

func (r ToolRef) String() string { return r.Name + "@" + r.Version + " (" + r.ProviderID + ")" }

// The accepted permission levels and latency classes, as listed in errors.
const (
	permissionLevels = abi.PermissionPublic + ", " + abi.PermissionLow + ", " + abi.PermissionMedium + ", " +
		abi.PermissionHigh + ", " + abi.PermissionCritical
	latencyClasses = abi.LatencyFast + ", " + abi.LatencyNormal + ", " + abi.LatencySlow
)

func validPermission(s string) bool {
	switch s {
	case abi.PermissionPublic, abi.PermissionLow, abi.PermissionMedium, abi.PermissionHigh, abi.PermissionCritical:
		return true
	}
	return false
}

func validLatency(s string) bool {
	switch s {
	case abi.LatencyFast, abi.LatencyNormal, abi.LatencySlow:
		return true
	}
	return false
}

func invalid(format string, args ...any) *abi.ToolError {
	return abi.Errorf(abi.InvalidRequest, format, args...)
}

// provText is a provider's searched text, with its signature.
type provText struct {
	text string
	sig  sig
}

// newProvText lower-cases p's name and id once for all its entries: each
// entry holding its own copy made a provider of 1 000 tools named with
// 1 MB cost 1 GB (a guest names itself at no cost).
func newProvText(p *ProviderRecord) provText {
	text := strings.ToLower(p.Info.Name) + "\x00" + strings.ToLower(p.Info.ID)
	return provText{text, signature(text)}
}

// newEntry checks def and builds its entry for provider p, whose text is pt.
func newEntry(p *ProviderRecord, pt provText, def abi.ToolDef) (*Entry, error) {
	if err := abi.ValidateToolName(def.Name); err != nil {
		return nil, invalid("provider %s: %v", p.Info.ID, err)
	}
	implicit := def.Version == ""
	if implicit {
		def.Version = DefaultVersion
	}
	v, err := semver.StrictNewVersion(def.Version)
	if err != nil {
		return nil, invalid("provider %s, tool %s: version %q is not a strict SemVer version (want MAJOR.MINOR.PATCH such as 1.2.0): %v",
			p.Info.ID, def.Name, def.Version, err)
	}
	def.Version = v.String()
	if def.PermissionLevel == "" {
		def.PermissionLevel = DefaultPermission
	}
	if !validPermission(def.PermissionLevel) {
		return nil, invalid("provider %s, tool %s: unknown permission level %q (want one of %s)",
			p.Info.ID, def.Name, def.PermissionLevel, permissionLevels)
	}
	if def.LatencyClass == "" {
		def.LatencyClass = DefaultLatency
	}
	if !validLatency(def.LatencyClass) {
		return nil, invalid("provider %s, tool %s: unknown latency class %q (want one of %s)",
			p.Info.ID, def.Name, def.LatencyClass, latencyClasses)
	}
	if def.Deprecation != nil {
		def.Deprecated = true
	}
	if err := checkDefText(&def); err != nil {
		return nil, invalid("provider %s, tool %s: %v", p.Info.ID, def.Name, err)
	}
	e := &Entry{Version: v, Provider: p, ver: def.Version, implicit: implicit}
	for _, s := range def.CapabilityRequired {
		c, err := abi.ParseCapability(s)
		if err != nil {
			return nil, invalid("provider %s, tool %s: capability_required: %v", p.Info.ID, def.Name, err)
		}
		e.Caps = append(e.Caps, c)
	}
	label := def.Name + "@" + def.Version
	if e.Params, err = schema.Compile(label+" parameters", def.Parameters); err != nil {
		return nil, invalid("provider %s, tool %s: %v", p.Info.ID, def.Name, err)
	}
	if e.Returns, err = schema.Compile(label+" returns", def.Returns); err != nil {
		return nil, invalid("provider %s, tool %s: %v", p.Info.ID, def.Name, err)
	}
	def.Tags = slices.Clone(def.Tags)
	def.Examples = slices.Clone(def.Examples)
	def.CapabilityRequired = slices.Clone(def.CapabilityRequired)
	e.Def = def
	e.buildHay(pt)
	return e, nil
}

// checkDefText refuses a definition whose texts are not valid UTF-8 (a
// MessagePack guest's bytes, a native provider's Go string): served as
// JSON they would not be what was registered (abi.CheckText). The schemas
// are checked by schema.Compile, the names by their own rules.
func checkDefText(def *abi.ToolDef) error {
	if err := abi.CheckText("description", def.Description); err != nil {
		return err
	}
	for i, t := range def.Tags {
		if err := abi.CheckText(fmt.Sprintf("tags[%d]", i), t); err != nil {
			return err
		}
	}
	for i, t := range def.Examples {
		if err := abi.CheckText(fmt.Sprintf("examples[%d]", i), t); err != nil {
			return err
		}
	}
	if d := def.Deprecation; d != nil {
		for _, f := range []struct{ name, s string }{{"deprecation.since", d.Since}, {"deprecation.message", d.Message}, {"deprecation.replacement", d.Replacement}} {
			if err := abi.CheckText(f.name, f.s); err != nil {
				return err
			}
		}
	}
	return nil
}

// buildHay precomputes the lower-cased search text. The fields are ordered
// by rank (name, tags, the rest) so the leftmost occurrence of a token is in
// its best field; \x00 separators keep tokens from spanning fields. The
// provider's name and id, ranked as the rest, are pt, shared.
func (e *Entry) buildHay(pt provText) {
	var sb strings.Builder
	sb.WriteString(strings.ToLower(e.Def.Name))
	e.nEnd = sb.Len()
	sb.WriteByte(0)
	for _, t := range e.Def.Tags {
		sb.WriteString(strings.ToLower(t))
		sb.WriteByte(' ')
	}
	e.tEnd = sb.Len()
	sb.WriteByte(0)
	sb.WriteString(strings.ToLower(e.Def.Description))
	for _, x := range e.Def.Examples {
		sb.WriteByte(0)
		sb.WriteString(strings.ToLower(x))
	}
	e.hay = sb.String()
	e.prov = pt.text
	e.sig = signature(e.hay)
	for w := range e.sig {
		e.sig[w] |= pt.sig[w]
	}
}

// compareEntries orders by name, then version.
func compareEntries(a, b *Entry) int {
	if c := strings.Compare(a.Def.Name, b.Def.Name); c != 0 {
		return c
	}
	return a.Version.Compare(b.Version)
}

// newEntries checks a whole registration; the first problem is returned.
func newEntries(p *ProviderRecord, tools []abi.ToolDef) ([]*Entry, error) {
	if p == nil {
		return nil, invalid("registration without a provider record")
	}
	if err := abi.ValidateProviderID(p.Info.ID); err != nil {
		return nil, invalid("%v", err)
	}
	if p.Trust < abi.Untrusted || p.Trust > abi.System {
		// Resolution walks the trust levels from the top one down to
		// Untrusted: a provider below it was registered and its tools
		// listed, but no constraint reached them ("no version of tool t
		// matches "^1" (available: 1.0.0)"), and one far above it made
		// every resolution walk billions of levels.
		return nil, invalid("provider %s: trust level %s is not one of Untrusted, Community, Verified, System", p.Info.ID, p.Trust)
	}
	out := make([]*Entry, 0, len(tools))
	seen := make(map[string]*Entry, len(tools))
	pt := newProvText(p)
	for _, def := range tools {
		e, err := newEntry(p, pt, def)
		if err != nil {
			return nil, err
		}
		key := e.key()
		if o := seen[key]; o != nil {
			if o.ver != e.ver {
				return nil, invalid("provider %s registers tool %s twice: %s@%s and %s@%s are one version (build metadata does not make another version)",
					p.Info.ID, key, e.Def.Name, o.ver, e.Def.Name, e.ver)
			}
			return nil, invalid("provider %s registers tool %s twice", p.Info.ID, key)
		}
		seen[key] = e
		out = append(out, e)
	}
	slices.SortFunc(out, compareEntries)
	return out, nil
}

// key identifies a tool version: name@version without build metadata,
// which SemVer ignores when comparing versions.
func (e *Entry) key() string {
	v, _, _ := strings.Cut(e.ver, "+")
	return e.Def.Name + "@" + v
}

func (e *Entry) String() string {
	return fmt.Sprintf("%s@%s (%s)", e.Def.Name, e.ver, e.Provider.Info.ID)
}
