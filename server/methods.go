package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/editdist"
	"github.com/aios-host/aios-host/internal/jsonmember"
	"github.com/aios-host/aios-host/registry"
	"github.com/aios-host/aios-host/server/jsonrpc"
	"golang.org/x/text/unicode/norm"
)

// ToolInfo is one tool in tools/list: the MCP fields (name, description,
// inputSchema, outputSchema) plus aios-host's.
type ToolInfo struct {
	Name               string           `json:"name"`
	Description        string           `json:"description,omitempty"`
	InputSchema        map[string]any   `json:"inputSchema"`
	OutputSchema       map[string]any   `json:"outputSchema,omitempty"`
	Version            string           `json:"version"`
	Provider           string           `json:"provider"`
	Runtime            string           `json:"runtime,omitempty"`
	Trust              string           `json:"trust"`
	PermissionLevel    string           `json:"permission_level,omitempty"`
	CapabilityRequired []string         `json:"capability_required,omitempty"`
	Tags               []string         `json:"tags,omitempty"`
	Deprecated         bool             `json:"deprecated,omitempty"`
	Deprecation        *abi.Deprecation `json:"deprecation,omitempty"`
	MCPExportable      bool             `json:"mcp_exportable,omitempty"`
	// RegisteredAt is when this definition was registered in the host
	// (UTC, RFC 3339; docs/registry.md).
	RegisteredAt time.Time `json:"registered_at,omitzero"`
	// SemverViolation is set when this version breaks callers of the
	// version below it without a major version increase (registered
	// because registry.semver_check is warn).
	SemverViolation *registry.SemverViolation `json:"semver_violation,omitempty"`
	// Source is where the provider was loaded from (a file path, "builtin",
	// an MCP server): reported on the unix socket only, whose peers are
	// local, not to HTTP peers.
	Source string `json:"source,omitempty"`
}

func toolInfo(e *registry.Entry) ToolInfo {
	in := e.Def.Parameters
	if in == nil {
		in = map[string]any{"type": "object"}
	}
	return ToolInfo{Name: e.Def.Name, Description: e.Def.Description, InputSchema: in, OutputSchema: e.Def.Returns,
		Version: e.Version.String(), Provider: e.Provider.Info.ID, Runtime: e.Provider.Info.Runtime,
		Trust: e.Provider.Trust.String(), PermissionLevel: e.Def.PermissionLevel, CapabilityRequired: e.Def.CapabilityRequired,
		Tags: e.Def.Tags, Deprecated: e.Def.Deprecated, Deprecation: e.Def.Deprecation, MCPExportable: e.Def.MCPExportable,
		RegisteredAt: e.RegisteredAt, SemverViolation: e.Violation}
}

type toolsListParams struct {
	// Cursor is the nextCursor of the page before (MCP pagination).
	Cursor string `json:"cursor"`
	// AllVersions lists every registered version, not only the newest.
	AllVersions bool `json:"all_versions"`
	// Callable lists only the tools the session's agent may call
	// (host.MayCall: grants, required capabilities, max_permission).
	Callable bool `json:"callable"`
}

func (s *Server) toolsList(sess *session, params json.RawMessage) (any, *jsonrpc.Error) {
	var p toolsListParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	after, err := decodeListCursor(p.Cursor)
	if err != nil {
		return nil, err
	}
	// The page starts after the last tool of the page before, found by
	// binary search in one snapshot of the registry: a tool registered or
	// removed meanwhile moves no other across the cut. Without
	// all_versions each name is listed as the version a call without a
	// version reaches: the default (docs/registry.md "Version
	// resolution"), not a newer pre-release or deprecated version; and
	// the page starts after the last name, as the default of that name
	// may have moved up since (it was listed again).
	var name string
	var version *semver.Version
	if after != nil {
		name, version = after.name, after.version
	}
	var entries iter.Seq[*registry.Entry]
	if p.AllVersions {
		entries = s.h.Registry().ToolsAfter(name, version)
	} else {
		entries = s.h.Registry().DefaultsAfter(name)
	}
	page := s.cfg.ListPageSize
	out := make([]ToolInfo, 0, min(page, 64))
	res := map[string]any{}
	for e := range entries {
		if p.Callable && (sess == nil || s.h.MayCall(sess.agent, e) != nil) {
			continue
		}
		if len(out) == page {
			last := out[len(out)-1]
			res["nextCursor"] = encodeListCursor(last.Name, last.Version)
			break
		}
		ti := toolInfo(e)
		if sess != nil && sess.transport == "unix" {
			ti.Source = e.Provider.Source
		}
		out = append(out, ti)
	}
	res["tools"] = out
	return res, nil
}

// listCursor is where a tools/list page starts: after this name and
// version. On the wire it is base64url of the JSON array [name, version],
// opaque to clients as MCP's cursors are.
type listCursor struct {
	name    string
	version *semver.Version
}

func encodeListCursor(name, version string) string {
	b, _ := json.Marshal([2]string{name, version})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeListCursor(s string) (*listCursor, *jsonrpc.Error) {
	if s == "" {
		return nil, nil
	}
	bad := func(why string) *jsonrpc.Error {
		return jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: cursor is not a nextCursor of tools/list (%s)", why)
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad("not base64url")
	}
	var v [2]string
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, bad("not [name, version]")
	}
	ver, err := semver.StrictNewVersion(v[1])
	if err != nil || v[0] == "" {
		return nil, bad("no tool name and version")
	}
	return &listCursor{name: v[0], version: ver}, nil
}

// ClientParentPrefix marks a parent_id a client gave (tools/call): the
// audit log records it as "client:<id>", never as a call of the host.
const ClientParentPrefix = "client:"

func (s *Server) toolsCall(ctx context.Context, sess *session, params json.RawMessage) (any, *jsonrpc.Error) {
	var p jsonrpc.ToolsCallParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: name (the tool) is required")
	}
	if p.TimeoutMS < 0 {
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: timeout_ms must not be negative")
	}
	if p.Depth < 0 {
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: depth must not be negative")
	}
	args := p.Arguments
	if args == nil {
		args = map[string]any{}
	}
	args, err := abi.Normalize(args)
	if err != nil {
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: arguments: %v", err)
	}
	call := &abi.ToolCall{Caller: sess.agent, Tool: p.Name, Version: p.Version, Params: args, Depth: p.Depth}
	if p.ParentID != "" {
		// The client's own correlation id, not a call of this host: the
		// audit log must not show it as one (a client could file its
		// calls under another agent's call).
		call.ParentID = ClientParentPrefix + p.ParentID
	}
	if p.TimeoutMS > 0 {
		// A timeout past what a Duration holds is a long one (the host
		// caps it at limits.max_deadline), not an overflow.
		ms := min(p.TimeoutMS, int64(math.MaxInt64/time.Millisecond))
		start := time.Now()
		if read, ok := ctx.Value(readAtKey{}).(time.Time); ok {
			start = read // a socket message that waited for a slot
		}
		call.Deadline = start.Add(time.Duration(ms) * time.Millisecond)
	}
	v, info, err := s.h.CallWithInfo(host.WithOrigin(ctx, sess.origin), call) // counted in metrics by the host's OnCall observer
	if err != nil {
		return nil, jsonrpc.FromError(err)
	}
	// Whole floats from 2^53 up go in exponent form (abi.ForJSON): as
	// integer literals a client reading integers exactly takes them for
	// other numbers.
	v = abi.ForJSON(v)
	res := jsonrpc.ToolsCallResult{Value: v, Tool: info.Tool, Version: info.Version, CallID: info.CallID, Deprecation: info.Deprecation}
	// A string is its own text, as the MCP server renders it (a summary's
	// lines were "\"line 1\\nline 2\"", quoted and escaped); any
	// other value is its JSON.
	if str, ok := v.(string); ok {
		res.Content = []jsonrpc.TextContent{{Type: "text", Text: str}}
	} else if text, err := json.Marshal(v); err == nil {
		res.Content = []jsonrpc.TextContent{{Type: "text", Text: string(text)}}
	}
	return res, nil
}

// AdapterSummary is one adapter in aios/registry.search (seed §3.3).
type AdapterSummary struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Version     string `json:"version"`
	SkillsCount int    `json:"skills_count"`
	Status      string `json:"status"` // available, shadowed, unavailable
	Runtime     string `json:"runtime,omitempty"`
	Trust       string `json:"trust"`
	Kind        string `json:"kind,omitempty"`
	Description string `json:"description,omitempty"`
}

// maxSearchWords bounds the distinct words of a search query (each is
// checked against every adapter's text) and its distinct capabilities
// (each checked against every adapter's card and grants).
const maxSearchWords = 32

// cardFeatures are the Adapter Card's capabilities (seed 001 §2.3), which
// aios/registry.search's capabilities may name.
var cardFeatures = []string{"streaming", "batch_operations", "async_tasks", "push_notifications", "state_transition_history"}

type searchParams struct {
	Query        string     `json:"query"`
	Type         string     `json:"type"`
	Capabilities stringList `json:"capabilities"`
	Limit        int        `json:"limit"`
	// terms are the distinct lower-cased words of Query.
	terms []string
}

// adapterView is everything search and info look at for one adapter.
type adapterView struct {
	sum   AdapterSummary
	card  *discovery.Card
	rec   *registry.ProviderRecord
	disc  *discovery.Adapter
	tools []abi.ToolDef
	// entries are the registered tools (nil for an adapter not
	// registered), parallel to tools.
	entries []*registry.Entry
}

func (s *Server) adapterViews() []*adapterView {
	reg := s.h.Registry()
	var disc map[string]discovery.Adapter
	var inactive []discovery.Adapter
	if s.d != nil {
		disc = map[string]discovery.Adapter{}
		for _, a := range s.d.Adapters() {
			if a.Active {
				disc[a.ID] = a
			} else {
				inactive = append(inactive, a)
			}
		}
	}
	var out []*adapterView
	for _, rec := range reg.Providers() {
		v := &adapterView{rec: rec}
		for _, e := range reg.ProviderTools(rec.Info.ID) {
			v.tools = append(v.tools, e.Def)
			v.entries = append(v.entries, e)
		}
		if a, ok := disc[rec.Info.ID]; ok {
			v.disc = &a
			v.card = a.Card
		}
		if v.card == nil {
			v.card = discovery.CardFromRegister(&abi.ToolRegister{Provider: rec.Info, Tools: v.tools})
		}
		v.sum = AdapterSummary{ID: rec.Info.ID, Name: v.card.Adapter.Name, Version: rec.Info.Version, SkillsCount: len(v.tools),
			Status: "available", Runtime: rec.Info.Runtime, Trust: rec.Trust.String(), Description: v.card.Adapter.Description}
		if v.sum.Version == "" {
			v.sum.Version = v.card.Adapter.Version
		}
		if v.sum.Version == "" {
			v.sum.Version = UnversionedAdapter
		}
		if !s.softwareInstalled(v) {
			v.sum.Status = "unavailable" // registered, but the software it drives is missing
		}
		if healthProblem(rec) != "" {
			v.sum.Status = "unavailable" // its endpoints.health fails
		}
		if v.disc != nil {
			v.sum.Kind = v.disc.Kind
		}
		out = append(out, v)
	}
	for i := range inactive {
		a := inactive[i]
		if a.Card == nil {
			continue
		}
		status := "unavailable"
		if a.Shadowed != "" {
			status = "shadowed"
		}
		v := &adapterView{card: a.Card, disc: &a, tools: a.Card.Tools()}
		v.sum = AdapterSummary{ID: a.ID, Name: a.Card.Adapter.Name, Version: a.Card.Adapter.Version, SkillsCount: len(a.Card.Skills),
			Status: status, Trust: a.Trust.String(), Kind: a.Kind, Description: a.Card.Adapter.Description}
		out = append(out, v)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].sum.ID < out[j].sum.ID })
	return out
}

// healthProblem says why rec's provider fails its health check (a remote
// adapter's endpoints.health), or "".
func healthProblem(rec *registry.ProviderRecord) string {
	if h, ok := rec.Impl.(interface{ Health() (bool, string) }); ok {
		if healthy, why := h.Health(); !healthy {
			return why
		}
	}
	return ""
}

// searchFold is s as a search compares it: in one normalization form and
// one case. Compared by its bytes, lower-cased only, a word the same to the
// eye matched nothing when written otherwise: "café" typed (U+00E9)
// against a text saved decomposed ("e" and U+0301), or the full-width
// "ｂｒｏｗｓｅｒ" of a Chinese input method against "browser". NFKC makes
// those one (and the ideographic space U+3000 a space).
func searchFold(s string) string {
	return strings.ToLower(norm.NFKC.String(s))
}

// searchTerms are the distinct folded (searchFold) words of a query,
// stopping past maxSearchWords.
func searchTerms(q string) []string {
	var terms []string
	for w := range strings.FieldsSeq(searchFold(q)) {
		if !slices.Contains(terms, w) {
			if terms = append(terms, w); len(terms) > maxSearchWords {
				break
			}
		}
	}
	return terms
}

func (v *adapterView) matches(p *searchParams) bool {
	if p.terms == nil {
		p.terms = searchTerms(p.Query)
	}
	if len(p.terms) > 0 {
		var hay strings.Builder
		hay.WriteString(v.sum.ID + " " + v.sum.Name + " " + v.sum.Description)
		for _, t := range v.tools {
			hay.WriteString(" " + t.Name + " " + t.Description + " " + strings.Join(t.Tags, " "))
		}
		if v.card != nil {
			// The card's own words for its skills: display names
			// ("打开网址") and examples.
			for _, sk := range v.card.Skills {
				hay.WriteString(" " + sk.Name + " " + sk.Description + " " + strings.Join(sk.Examples, " "))
			}
		}
		h := searchFold(hay.String())
		for _, term := range p.terms {
			if !strings.Contains(h, term) {
				return false
			}
		}
	}
	if p.Type != "" && !strings.EqualFold(p.Type, v.sum.Runtime) && !strings.EqualFold(p.Type, v.sum.Kind) {
		found := false
		for _, t := range v.tools {
			if first, _, _ := strings.Cut(t.Name, "."); strings.EqualFold(first, p.Type) && strings.Contains(t.Name, ".") {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	for _, c := range p.Capabilities {
		if v.card != nil && v.card.Capabilities.Has(c) {
			continue
		}
		if !v.holds(c) {
			return false
		}
	}
	return true
}

// holds reports whether the adapter's provider holds capability c.
func (v *adapterView) holds(c string) bool {
	want, err := abi.ParseCapability(c)
	if err != nil {
		return false
	}
	var held abi.Grants
	if v.rec != nil {
		held = v.rec.Grants
	}
	return held.Allows(want)
}

func (s *Server) registrySearch(params json.RawMessage) (any, *jsonrpc.Error) {
	var p searchParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Limit < 0 {
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: limit must not be negative")
	}
	if p.Limit == 0 || p.Limit > 1000 {
		p.Limit = min(max(p.Limit, 50), 1000)
	}
	p.terms = searchTerms(p.Query)
	if len(p.terms) > maxSearchWords {
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: query has more than %d distinct words (each is matched against every adapter)", maxSearchWords)
	}
	// A repeated capability counts once; each distinct one is checked
	// against every adapter, so they are bounded as the query's words are.
	// at[i] is where p.Capabilities[i] stood in the request.
	var caps []string
	var at []int
	for i, c := range p.Capabilities {
		if slices.Contains(caps, c) {
			continue
		}
		if len(caps) == maxSearchWords {
			return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: capabilities has more than %d distinct entries (each is checked against every adapter)", maxSearchWords)
		}
		caps, at = append(caps, c), append(at, i)
	}
	p.Capabilities = caps
	// A string that is neither a card feature nor a capability would
	// match nothing: an empty answer to a mistake.
	for i, c := range p.Capabilities {
		if slices.Contains(cardFeatures, c) {
			continue
		}
		if _, err := abi.ParseCapability(c); err != nil {
			why := err.Error()
			if len(c) > maxEcho {
				// (it quotes c again, and maybe its kind or argument)
				why = cutEcho(strings.TrimPrefix(why, "capability "+strconv.Quote(strings.TrimSpace(c))+": "))
			}
			return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: capabilities[%d] %s is neither a card feature (%s) nor a capability (%s)",
				at[i], echo(c), strings.Join(cardFeatures, ", "), why)
		}
	}
	views := s.adapterViews()
	// A card feature in another case or a letter off ("Streaming",
	// "streming") parses as a custom capability, which no adapter holds:
	// an empty answer to a mistake too, unless some adapter holds it.
	for i, c := range p.Capabilities {
		meant := editdist.Closest(c, cardFeatures, 2)
		if meant == "" || meant == c || slices.ContainsFunc(views, func(v *adapterView) bool { return v.holds(c) }) {
			continue
		}
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: capabilities[%d] %s is not a card feature: did you mean %q? (card features are written in lower case: %s)",
			at[i], echo(c), meant, strings.Join(cardFeatures, ", "))
	}
	out := []AdapterSummary{}
	total := 0
	for _, v := range views {
		if !v.matches(&p) {
			continue
		}
		total++
		if len(out) < p.Limit {
			out = append(out, v.sum)
		}
	}
	return map[string]any{"adapters": out, "total": total}, nil
}

type infoParams struct {
	AdapterID string `json:"adapter_id"`
}

// InfoStatus is the status member of aios/registry.info.
type InfoStatus struct {
	Available         bool `json:"available"`
	SoftwareInstalled bool `json:"software_installed"`
	SoftwareRunning   bool `json:"software_running"`
	// SoftwareVersion is the installed version of requirements.software
	// ("" when unknown or the card names no software), VersionSource
	// where it was read (dpkg:PACKAGE, --version).
	SoftwareVersion string `json:"software_version"`
	VersionSource   string `json:"version_source,omitempty"`
	// VersionOK is present when the card names min_version and the
	// version is known; false: too old, software_installed is false.
	VersionOK *bool `json:"version_ok,omitempty"`
	// DBusService is the state of detection.dbus_service: running,
	// activatable, absent or unknown (no bus could be asked).
	DBusService string `json:"dbus_service,omitempty"`
	// SoftwareReason says why the software counts as not installed;
	// SoftwareNotes what could not be checked.
	SoftwareReason string   `json:"software_reason,omitempty"`
	SoftwareNotes  []string `json:"software_notes,omitempty"`
	Trust          string   `json:"trust"`
	Signed         bool     `json:"signed"`
	KeyID          string   `json:"key_id,omitempty"`
	Kind           string   `json:"kind,omitempty"`
	Source         string   `json:"source,omitempty"`
	Runtime        string   `json:"runtime,omitempty"`
	ShadowedBy     string   `json:"shadowed_by,omitempty"`
	Error          string   `json:"error,omitempty"`
	// Warnings are problems that did not stop the adapter loading (a
	// card requiring authentication the host cannot supply).
	Warnings []string `json:"warnings,omitempty"`
}

func (s *Server) registryInfo(sess *session, params json.RawMessage) (any, *jsonrpc.Error) {
	var p infoParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.AdapterID == "" {
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: adapter_id is required")
	}
	var pick *adapterView
	views := s.adapterViews()
	for _, v := range views {
		if v.sum.ID == p.AdapterID && (pick == nil || v.rec != nil) {
			pick = v
		}
	}
	if pick == nil {
		// A tool several adapters serve: name the one serving its
		// default version, which an unconstrained call reaches.
		var serving string
		if def, err := s.h.Registry().Resolve(p.AdapterID, ""); err == nil {
			serving = def.Provider.Info.ID
		}
		return nil, jsonrpc.FromError(adapterNotFound(p.AdapterID, serving, views))
	}
	skills := infoSkills(pick)
	st := InfoStatus{Available: pick.rec != nil, SoftwareInstalled: true, Trust: pick.sum.Trust, Kind: pick.sum.Kind, Runtime: pick.sum.Runtime}
	if pick.rec != nil {
		st.Source = pick.rec.Source
	}
	healthErr := ""
	if pick.rec != nil {
		if healthErr = healthProblem(pick.rec); healthErr != "" {
			st.Available = false
		}
	}
	if d := pick.disc; d != nil {
		st.Signed, st.KeyID, st.Source, st.ShadowedBy, st.Error, st.Warnings = d.Signed, d.KeyID, d.Source, d.Shadowed, d.Err, d.Warnings
	}
	if healthErr != "" && st.Error == "" {
		st.Error = healthErr
	}
	if det, ok := s.detectSoftware(pick); ok {
		st.SoftwareInstalled, st.SoftwareRunning = det.Installed, det.Running
		st.SoftwareVersion, st.VersionSource, st.VersionOK = det.Version, det.VersionSource, det.VersionOK
		st.DBusService, st.SoftwareReason, st.SoftwareNotes = det.DBus, det.Reason, det.Notes
		// Its tools are registered, but a call answers Unavailable.
		st.Available = st.Available && det.Installed
		if !det.Installed && st.Error == "" {
			st.Error = det.Reason
		}
	}
	// After detection, which fills the software fields (a desktop file
	// "not found in" the desktop folders) and may fill error.
	if sess == nil || sess.transport != "unix" {
		st.Source = "" // a path on this host: for local peers only, as in tools/list
		cut := s.rootCutter()
		st.ShadowedBy, st.Error, st.SoftwareReason = cut(st.ShadowedBy), cut(st.Error), cut(st.SoftwareReason)
		st.Warnings, st.SoftwareNotes = mapStrings(st.Warnings, cut), mapStrings(st.SoftwareNotes, cut)
	}
	// The version search reports (the provider's, else its card's, else
	// UnversionedAdapter): a provider without a card and without a version
	// had "" here and "0.0.0" in search.
	ad := pick.card.Adapter
	ad.Version = pick.sum.Version
	res := map[string]any{"adapter": ad, "capabilities": pick.card.Capabilities, "skills": skills, "status": st}
	if pick.rec != nil {
		if sh := s.shadowedSkills(pick.sum.ID); len(sh) > 0 {
			res["shadowed_skills"] = sh
		}
	}
	if c := pick.card; c != nil {
		if c.Endpoints != nil {
			res["endpoints"] = c.Endpoints
		}
		if c.Requirements != nil {
			res["requirements"] = c.Requirements
		}
		if len(c.Extensions) > 0 {
			res["extensions"] = c.Extensions
		}
		if c.Authentication != nil {
			res["authentication"] = c.Authentication
		}
	}
	return res, nil
}

// ShadowedSkill is a tool version an adapter registers that is not served,
// and the provider whose tool shadows it (shadowed_by: the one serving the
// same version, else the tool's default version; a more trusted provider
// holds the tool). info listed the adapter's served skills only, saying
// nothing of these (found by p174).
type ShadowedSkill struct {
	ID         string `json:"id"`
	Version    string `json:"version"`
	ShadowedBy string `json:"shadowed_by,omitempty"`
}

// shadowedSkills are the shadowed tool versions of provider id, sorted.
func (s *Server) shadowedSkills(id string) []ShadowedSkill {
	reg := s.h.Registry()
	var out []ShadowedSkill
	for _, e := range reg.Shadowed(id) {
		sk := ShadowedSkill{ID: e.Def.Name, Version: e.Def.Version}
		served, err := reg.Resolve(e.Def.Name, e.Def.Version)
		if err != nil {
			served, err = reg.Resolve(e.Def.Name, "")
		}
		if err == nil && served.Provider.Info.ID != id {
			sk.ShadowedBy = served.Provider.Info.ID
		}
		out = append(out, sk)
	}
	// In Shadowed's order, by name then version in SemVer order (sorted
	// as strings, 1.10.0 came before 1.9.0).
	return out
}

// adapterNotFound is info's NotFound for id, saying what was likely
// meant: the adapter serving a tool of that name (a skill id given as
// adapter_id; serving, when set, the adapter serving its default
// version), else up to 3 adapter ids close to it (editdist.Near).
func adapterNotFound(id, serving string, views []*adapterView) *abi.ToolError {
	var holder string
	for _, v := range views {
		if slices.ContainsFunc(v.tools, func(t abi.ToolDef) bool { return t.Name == id }) && (holder == "" || v.sum.ID == serving) {
			holder = v.sum.ID
		}
	}
	if holder != "" {
		te := abi.Errorf(abi.NotFound, "adapter %s not found: %s is a tool of adapter %q; pass that adapter's id as adapter_id", echo(id), echo(id), holder)
		te.Data = map[string]any{"adapter_id": cutEcho(id), "tool_of": holder}
		return te
	}
	near := editdist.Near(id, func(yield func(string) bool) {
		for _, v := range views {
			if !yield(v.sum.ID) {
				return
			}
		}
	}, 3)
	quoted := mapStrings(near, strconv.Quote)
	if len(near) == 0 {
		te := abi.Errorf(abi.NotFound, "adapter %s not found", echo(id))
		te.Data = map[string]any{"adapter_id": cutEcho(id)}
		return te
	}
	te := abi.Errorf(abi.NotFound, "adapter %s not found; did you mean %s?", echo(id), strings.Join(quoted, ", "))
	te.Data = map[string]any{"adapter_id": cutEcho(id), "suggestions": near}
	return te
}

// mapStrings is f applied to each of l (nil for nil).
func mapStrings(l []string, f func(string) string) []string {
	if l == nil {
		return nil
	}
	out := make([]string, len(l))
	for i, x := range l {
		out[i] = f(x)
	}
	return out
}

// UnversionedAdapter is the version reported for a provider that declares
// none (seed 001 makes version a required SemVer): the lowest there is.
const UnversionedAdapter = "0.0.0"

// softwareInstalled reports whether the software v's card's requirements
// name is installed, at min_version or later (true when it names none).
func (s *Server) softwareInstalled(v *adapterView) bool {
	det, ok := s.detectSoftware(v)
	return !ok || det.Installed
}

// detectSoftware runs software detection for v's card; ok is false when
// the card names no requirements.software. It runs at every search and
// info, as the desktop and executable checks always did; the dpkg answers
// are kept until the package database changes and the D-Bus ones for 2 s.
func (s *Server) detectSoftware(v *adapterView) (det discovery.Detected, ok bool) {
	if v == nil || v.card == nil || v.card.Requirements == nil || v.card.Requirements.Software == nil {
		return det, false
	}
	cfg, err := discovery.LoadConfig(s.hcfg)
	if err != nil {
		cfg = discovery.Config{}
	}
	tl, kind := abi.Untrusted, ""
	if v.disc != nil {
		tl, kind = v.disc.Trust, v.disc.Kind
	}
	if v.rec != nil {
		tl = v.rec.Trust
	}
	return discovery.DetectWith(v.card.Requirements.Software, discovery.DetectOptions{
		DesktopDirs: cfg.DesktopDirs,
		RunVersion:  cfg.VersionCommandAllowed(kind, tl),
	}), true
}

// InfoSkill is one skill of aios/registry.info: the card's skill fields,
// and for a registered tool when its definition was registered and its
// SemVer violation, if any.
type InfoSkill struct {
	discovery.Skill
	RegisteredAt    time.Time                 `json:"registered_at,omitzero"`
	SemverViolation *registry.SemverViolation `json:"semver_violation,omitempty"`
}

// infoSkills is the skills member of aios/registry.info: one per
// registered tool, in the order of the card's skills and with their
// display names when the card lists them (the seed's "打开网址"), then the
// tools the card does not list, by name.
func infoSkills(v *adapterView) []InfoSkill {
	type ref struct {
		at   int
		name string
	}
	listed := map[string]ref{}
	if v.card != nil {
		for i, sk := range v.card.Skills {
			if _, dup := listed[sk.ID]; !dup {
				listed[sk.ID] = ref{i, sk.Name}
			}
		}
	}
	skills := make([]InfoSkill, 0, len(v.tools))
	for i, t := range v.tools {
		sk := InfoSkill{Skill: discovery.SkillFromTool(t)}
		if r, ok := listed[sk.ID]; ok && r.name != "" {
			sk.Name = r.name
		}
		if i < len(v.entries) {
			sk.RegisteredAt, sk.SemverViolation = v.entries[i].RegisteredAt, v.entries[i].Violation
		}
		skills = append(skills, sk)
	}
	sort.SliceStable(skills, func(i, j int) bool {
		ri, iok := listed[skills[i].ID]
		rj, jok := listed[skills[j].ID]
		switch {
		case iok && jok:
			return ri.at < rj.at
		case iok != jok:
			return iok
		}
		return skills[i].ID < skills[j].ID
	})
	return skills
}

type refreshParams struct {
	Scope string `json:"scope"`
}

func (s *Server) registryRefresh(ctx context.Context, sess *session, params json.RawMessage) (any, *jsonrpc.Error) {
	var p refreshParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Scope == "" {
		p.Scope = "all"
	}
	if s.d == nil {
		return nil, jsonrpc.Errorf(abi.Unavailable, "discovery is not running in this host")
	}
	g, ok := s.refreshes[p.Scope]
	if !ok {
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: scope %s: want local, remote or all", echo(p.Scope))
	}
	// One rescan at a time per scope; requests meanwhile share the next
	// (coalesce.go): any number of clients cost at most two.
	n, err := g.do(ctx, func(ctx context.Context) (int, error) {
		n, err := s.d.Refresh(ctx, p.Scope)
		if err == nil && s.refresh != nil && (p.Scope == "all" || p.Scope == "remote") {
			if err := s.refresh(ctx, p.Scope); err != nil { // Options.OnRefresh (MCP bridge)
				s.log.Warn("refresh hook", "scope", p.Scope, "err", err)
			}
		}
		return n, err
	})
	if ctx.Err() != nil {
		// (the server closing ends the rescan, which says what it
		// could not fetch: it is not the rescan asked for)
		return nil, jsonrpc.Errorf(abi.Cancelled, "refresh: %v", context.Cause(ctx))
	}
	if err != nil {
		if errors.Is(err, discovery.ErrClosed) {
			return nil, jsonrpc.Errorf(abi.Unavailable, "refresh: %v", err)
		}
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: %v", err)
	}
	errs := s.d.Errors()
	if sess == nil || sess.transport != "unix" {
		errs = s.hideRoots(errs)
	}
	return map[string]any{"scope": p.Scope, "adapters": n, "errors": errs}, nil
}

// rootCutter returns a function that cuts discovery's folders (plugin,
// card and desktop folders) from a text, for peers that are not local.
func (s *Server) rootCutter() func(string) string {
	if s.d == nil {
		return func(x string) string { return x }
	}
	roots := s.d.Roots()
	// The longest first, so that a folder inside another is cut whole.
	sort.Slice(roots, func(i, j int) bool { return len(roots[i]) > len(roots[j]) })
	return func(x string) string {
		for _, r := range roots {
			x = strings.ReplaceAll(x, r+string(filepath.Separator), "")
			x = strings.ReplaceAll(x, r, filepath.Base(r))
		}
		return x
	}
}

// hideRoots is errs (unit path → message) for a peer that is not local:
// paths on this host are for local peers only (as a provider's source), so
// each unit is named relative to its discovery folder and the folders are
// cut from the messages. Remote units ("remote:URL") keep their names.
func (s *Server) hideRoots(errs map[string]string) map[string]string {
	cut := s.rootCutter()
	out := make(map[string]string, len(errs))
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		base := cut(k)
		if filepath.IsAbs(base) {
			base = filepath.Base(base) // a unit outside every folder
		}
		name := base
		for i := 2; ; i++ {
			if _, dup := out[name]; !dup {
				break
			}
			name = fmt.Sprintf("%s (%d)", base, i) // the same name in two folders
		}
		out[name] = cut(errs[k])
	}
	return out
}

// subscriptions are a connection's tools_changed subscriptions.
type subscriptions struct {
	mu   sync.Mutex
	subs map[string]func()
	// closed is set by closeAll: the connection is closing, and a
	// subscribe still running may not add a subscription nobody ends.
	closed bool
}

// active reports whether the session holds a subscription.
func (ss *subscriptions) active() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.subs) > 0
}

func (ss *subscriptions) closeAll() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.closed = true
	for id, cancel := range ss.subs {
		cancel()
		delete(ss.subs, id)
	}
}

// maxSubscriptionsPerConn bounds the subscriptions one socket connection
// holds: each costs a goroutine, a registry subscriber with a 64-event
// buffer and a turn in every registry change's fan-out.
const maxSubscriptionsPerConn = 16

type subscribeParams struct {
	Events stringList `json:"events"`
}

// AdapterRef is one adapter (provider) in a tools_changed notification:
// the seed's {id, name} (the adapter's id and display name), its version,
// and the tools of it that changed.
type AdapterRef struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Version string    `json:"version"`
	Tools   []ToolRef `json:"tools"`
}

// ToolRef is one changed tool of an AdapterRef.
type ToolRef struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Change  string `json:"change"` // "added", "removed" or "updated"
	// SemverViolation: this added or updated version breaks callers of the
	// version below it without a major version increase.
	SemverViolation *registry.SemverViolation `json:"semver_violation,omitempty"`
}

// ToolsChanged is the params of aios/notification.tools_changed: the
// adapters added (new), removed (gone) and updated (tools or name, version,
// description, runtime, trust or source changed). One registry change is
// about one adapter.
type ToolsChanged struct {
	Added        []AdapterRef `json:"added"`
	Removed      []AdapterRef `json:"removed"`
	Updated      []AdapterRef `json:"updated"`
	Overflow     bool         `json:"overflow,omitempty"`
	Subscription string       `json:"subscription,omitempty"`
}

// NotificationToolsChanged is the method of the change notification.
const NotificationToolsChanged = "aios/notification.tools_changed"

// adapterRef is the AdapterRef of a registry event.
func adapterRef(ev registry.Event) AdapterRef {
	pc := ev.Provider
	a := AdapterRef{ID: pc.ID, Name: pc.Name, Version: pc.Version, Tools: []ToolRef{}}
	if a.Name == "" {
		a.Name = a.ID
	}
	if a.Version == "" {
		a.Version = UnversionedAdapter
	}
	// A violation is carried by the version registered: the one that
	// breaks callers of the version below it (Version), or one inserted
	// below a release that breaks its callers (Previous: t@1.1.0 between
	// 1.0.0 and 1.2.0, "t@1.2.0 breaks callers of t@1.1.0"), as
	// Entry.Violation and so tools/list have it.
	// A violation whose breaking version is in this change, and the only
	// one of that version, is that version's (the registry reports a
	// violation once, by the version that breaks, when both versions are
	// registered together).
	var violations, below map[string]*registry.SemverViolation
	if len(ev.Violations) > 0 {
		violations, below = map[string]*registry.SemverViolation{}, map[string]*registry.SemverViolation{}
	}
	inChange := map[string]bool{}
	for _, refs := range [][]registry.ToolRef{ev.Added, ev.Updated} {
		for _, r := range refs {
			inChange[r.Name+"@"+r.Version] = true
		}
	}
	ofVersion := map[string]int{}
	for i := range ev.Violations {
		ofVersion[ev.Violations[i].Tool+"@"+ev.Violations[i].Version]++
	}
	for i := range ev.Violations {
		v := &ev.Violations[i]
		k := v.Tool + "@" + v.Version
		violations[k] = v
		if !inChange[k] || ofVersion[k] > 1 {
			below[v.Tool+"@"+v.Previous] = v
		}
	}
	for _, l := range []struct {
		refs   []registry.ToolRef
		change string
	}{{ev.Added, "added"}, {ev.Removed, "removed"}, {ev.Updated, "updated"}} {
		for _, r := range l.refs {
			tr := ToolRef{Name: r.Name, Version: r.Version, Change: l.change}
			if l.change != "removed" {
				if tr.SemverViolation = violations[r.Name+"@"+r.Version]; tr.SemverViolation == nil {
					tr.SemverViolation = below[r.Name+"@"+r.Version]
				}
			}
			a.Tools = append(a.Tools, tr)
		}
	}
	return a
}

func parseEvents(list []string) (map[string]bool, *jsonrpc.Error) {
	want := map[string]bool{}
	if len(list) == 0 {
		list = []string{"added", "removed", "updated"}
	}
	for _, e := range list {
		switch e {
		case "added", "removed", "updated":
			want[e] = true
		default:
			return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: event %s is not added, removed or updated", echo(e))
		}
	}
	return want, nil
}

// changeParams filters a registry event; nil when nothing is left.
func changeParams(ev registry.Event, want map[string]bool, sub string) *ToolsChanged {
	tc := &ToolsChanged{Added: []AdapterRef{}, Removed: []AdapterRef{}, Updated: []AdapterRef{}, Overflow: ev.Overflow, Subscription: sub}
	if pc := ev.Provider; pc != nil && want[pc.Action] {
		a := adapterRef(ev)
		switch pc.Action {
		case "added":
			tc.Added = append(tc.Added, a)
		case "removed":
			tc.Removed = append(tc.Removed, a)
		default:
			tc.Updated = append(tc.Updated, a)
		}
	}
	if len(tc.Added)+len(tc.Removed)+len(tc.Updated) == 0 && !tc.Overflow {
		return nil
	}
	return tc
}

func (s *Server) subscribe(ctx context.Context, sess *session, params json.RawMessage) (any, *jsonrpc.Error) {
	var p subscribeParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Events != nil && len(p.Events) == 0 {
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: events is empty; omit it to subscribe to every event (added, removed, updated)")
	}
	want, rerr := parseEvents(p.Events)
	if rerr != nil {
		return nil, rerr
	}
	events := make([]string, 0, len(want))
	for e := range want {
		events = append(events, e)
	}
	sort.Strings(events)
	if sess.notify == nil {
		// The stream filters as asked: "/events" alone sends every event.
		url := "/events"
		if len(events) < 3 {
			url += "?events=" + strings.Join(events, ",")
		}
		return map[string]any{"subscription": nil, "transport": "sse", "events_url": url, "events": events,
			"note": "HTTP POST cannot carry notifications: GET " + url + " (Server-Sent Events) with the same bearer token"}, nil
	}
	s.mu.Lock()
	s.nextSub++
	id := fmt.Sprintf("sub-%d", s.nextSub)
	s.mu.Unlock()
	ch, cancel := s.h.Registry().Subscribe(64)
	s.metrics.subscribers.Inc()
	var once sync.Once
	// nmu orders the notifications with the end of the subscription: once
	// stop returns (and so before unsubscribe answers), none is sent.
	var nmu sync.Mutex
	stopped := false
	stop := func() {
		once.Do(func() {
			nmu.Lock()
			stopped = true
			nmu.Unlock()
			cancel()
			s.metrics.subscribers.Dec()
		})
	}
	sess.subs.mu.Lock()
	if sess.subs.closed {
		sess.subs.mu.Unlock()
		stop()
		return nil, jsonrpc.Errorf(abi.Cancelled, "the connection is closing; subscription not made")
	}
	if n := len(sess.subs.subs); n >= maxSubscriptionsPerConn {
		sess.subs.mu.Unlock()
		stop()
		return nil, jsonrpc.Errorf(abi.TooLarge, "this connection already holds %d subscriptions, the limit (each one receives every change: one with events [added, removed, updated] is enough; aios/registry.unsubscribe ends them)", n)
	}
	if sess.subs.subs == nil {
		sess.subs.subs = map[string]func(){}
	}
	sess.subs.subs[id] = stop
	sess.subs.mu.Unlock()
	// The client learns id from the answer: nothing of this subscription
	// goes out before it (events meanwhile wait in ch).
	answered := answerWritten(ctx)
	go func() {
		<-answered
		for ev := range ch {
			tc := changeParams(ev, want, id)
			if tc == nil {
				continue
			}
			nmu.Lock()
			if stopped {
				nmu.Unlock()
				return
			}
			err := sess.notify(&jsonrpc.Notification{JSONRPC: jsonrpc.Version, Method: NotificationToolsChanged, Params: tc})
			nmu.Unlock()
			if err != nil {
				stop()
				return
			}
		}
	}()
	return map[string]any{"subscription": id, "events": events}, nil
}

type unsubscribeParams struct {
	// Subscription is nil when left out (or null): every subscription of
	// the connection ends. An empty id names none.
	Subscription *string `json:"subscription"`
}

func (s *Server) unsubscribe(sess *session, params json.RawMessage) (any, *jsonrpc.Error) {
	var p unsubscribeParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if sess.subs == nil {
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: this transport has no subscriptions (close the /events stream instead)")
	}
	if p.Subscription != nil && *p.Subscription == "" {
		// ("subscription": "" from an id the client lost) ended every
		// subscription of the connection, as if left out.
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, `invalid params: subscription is "": pass the id aios/registry.subscribe returned, or leave subscription out to end every subscription of the connection`)
	}
	if p.Subscription == nil {
		// The seed (001 §5.2, §7) subscribes without a handle and lists
		// unsubscribe without params: without an id, every subscription
		// of the connection ends. A connection that holds none is told
		// what the method takes.
		sess.subs.mu.Lock()
		if len(sess.subs.subs) == 0 {
			sess.subs.mu.Unlock()
			return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: subscription is required (the id aios/registry.subscribe returned; without one every subscription of the connection ends, and this connection holds none)")
		}
		ids := make([]string, 0, len(sess.subs.subs))
		stops := make([]func(), 0, len(sess.subs.subs))
		for id, stop := range sess.subs.subs {
			ids = append(ids, id)
			stops = append(stops, stop)
		}
		clear(sess.subs.subs)
		sess.subs.mu.Unlock()
		for _, stop := range stops {
			stop()
		}
		sort.Strings(ids)
		return map[string]any{"unsubscribed": ids}, nil
	}
	id := *p.Subscription
	sess.subs.mu.Lock()
	stop, ok := sess.subs.subs[id]
	delete(sess.subs.subs, id)
	var held []string
	if !ok {
		held = append([]string{}, slices.Sorted(maps.Keys(sess.subs.subs))...) // [] when none, not null
	}
	sess.subs.mu.Unlock()
	if !ok {
		// Which ones the connection holds (it said only "not found"):
		// an id of another connection, or of one that closed, is not
		// one of them, and a client that lost its ids can end them.
		e := jsonrpc.Errorf(abi.NotFound, "subscription %s not found on this connection, which holds none (a subscription belongs to the connection that made it)", echo(id))
		if len(held) > 0 {
			e = jsonrpc.Errorf(abi.NotFound, "subscription %s not found on this connection, which holds %s (a subscription belongs to the connection that made it)", echo(id), strings.Join(held, ", "))
		}
		e.Data.Details = map[string]any{"subscription": cutEcho(id), "held": held}
		return nil, e
	}
	stop()
	return map[string]any{"unsubscribed": id}, nil
}

type diffParams struct {
	Tool string `json:"tool"`
	From string `json:"from"`
	To   string `json:"to"`
}

// registryDiff is aios/registry.diff: what changed in a tool's schemas
// between two registered versions (registry.Diff).
func (s *Server) registryDiff(params json.RawMessage) (any, *jsonrpc.Error) {
	var p diffParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Tool == "" {
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: tool is required")
	}
	d, err := s.h.Registry().Diff(p.Tool, p.From, p.To)
	if err != nil {
		return nil, jsonrpc.FromError(err)
	}
	return d, nil
}

type initializeParams struct {
	ProtocolVersion string `json:"protocol_version"`
}

// initialize is the seed's capability declaration (001 §1.2: an AIOS
// adapter declares its capabilities by "Adapter Card + initialize"): the
// host's adapter record and capabilities, as in its card, and the protocol
// version it speaks. A client's protocol_version is checked as a card's
// (§3.2 step 3); other members (client information) are accepted and
// ignored, since the seed defines none.
func (s *Server) initialize(params json.RawMessage) (any, *jsonrpc.Error) {
	var p initializeParams
	if pr := bytes.TrimSpace(params); len(pr) > 0 && !bytes.Equal(pr, []byte("null")) {
		if pr[0] != '{' {
			return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: pass params by name (a JSON object)")
		}
		// Other members are ignored, but not protocol_version given twice
		// or in another case, which encoding/json takes (the last, or
		// PROTOCOL_VERSION for it): the check of the first "9" was passed
		// by a second "0.3.0".
		if msg := jsonmember.Problem(pr, paramNames(&p), "field"); msg != "" {
			return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: %s", msg)
		}
		if err := json.Unmarshal(pr, &p); err != nil {
			return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: %s", paramsError(err))
		}
	}
	if len(p.ProtocolVersion) > maxEcho {
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: protocol_version: %s is not a version (this host speaks %s)", echo(p.ProtocolVersion), discovery.ProtocolVersion)
	}
	if p.ProtocolVersion != "" {
		if err := discovery.CheckProtocolVersion(p.ProtocolVersion); err != nil {
			return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: protocol_version: %v", err)
		}
	}
	adapter, caps := s.hostDeclaration()
	return map[string]any{"protocol_version": discovery.ProtocolVersion, "adapter": adapter, "capabilities": caps}, nil
}

type cancelParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason"`
}

// cancelRequest is notifications/cancelled: it cancels the requests of
// requestId in flight on this connection. Sent as a request, it answers
// {cancelled: N}; a request that ended meanwhile is no error (N is 0).
func (s *Server) cancelRequest(sess *session, params json.RawMessage) (any, *jsonrpc.Error) {
	var p cancelParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if len(p.RequestID) == 0 || bytes.Equal(bytes.TrimSpace(p.RequestID), []byte("null")) {
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: requestId is required: the id (a string or a number) of the request to cancel, sent on this connection")
	}
	if !validID(p.RequestID) {
		// (it said "requestId is required" of a requestId given as true
		// or {"id": 1}: the client looked for a member it had sent)
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: requestId must be the id (a string or a number) of the request to cancel, sent on this connection (%s)", given(p.RequestID, true))
	}
	if sess.inflight == nil {
		return nil, jsonrpc.Protocol(jsonrpc.CodeInvalidParams, "invalid params: this transport has no requests to cancel by id (close the HTTP request instead)")
	}
	return map[string]any{"cancelled": sess.inflight.cancel(p.RequestID, p.Reason)}, nil
}
