package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/internal/screen"
	"github.com/aios-host/aios-host/registry"
	"github.com/aios-host/aios-host/space"
)

// Options configure a Host. Only Config is needed; the rest have defaults.
type Options struct {
	// Config is the host configuration (config.Default() when nil).
	Config *config.Config
	// Logger receives host messages (discarded when nil).
	Logger *slog.Logger
	// Loaders make up the loader table used by LoadFile, by extension.
	// The host does not close them: close them after the host (see
	// Close).
	Loaders []abi.Loader
	// Spaces is the Space store tools reach through Env. When nil, Space
	// calls fail with Unavailable. The host does not close it.
	Spaces *space.Store
	// Audit receives one entry per call. When nil no audit log is written.
	// The host takes ownership: Close closes it (which flushes it).
	Audit *audit.Writer
	// HTTPClient is used for inference requests (http.DefaultClient's
	// transport with the configured timeout when nil).
	HTTPClient *http.Client
	// ToolNamespaces reserves tool names by prefix: a tool whose name
	// begins with a key may be registered by the provider the key's
	// Namespace names only (cmd reserves mcp-{server}- for each server of
	// mcp.servers, the MCP bridge's org.aios.mcp.{server}). The longest
	// matching key counts.
	ToolNamespaces map[string]Namespace
}

// Namespace is the owner of reserved tool names (Options.ToolNamespaces).
type Namespace struct {
	// Provider is the id of the provider that may register the names.
	Provider string
	// Owner says whose they are, for the refusal: "MCP server x
	// (mcp.servers.x)".
	Owner string
	// Source, when set, is where Provider is loaded from
	// (ProviderMeta.Source): a provider of that id from anywhere else is
	// refused, since an id is whatever a file declares (a plugin naming
	// itself org.aios.mcp.x took the names, or replaced the bridge).
	Source string
}

// ProviderMeta says where a provider came from and how far it is trusted.
type ProviderMeta struct {
	// Source is the file, URL or package the provider was loaded from.
	Source string
	// Trust is the provider's trust level (Untrusted for unsigned code).
	Trust abi.TrustLevel
	// Unit and Pinned are abi.Source's.
	Unit   string
	Pinned map[string]string
	// ProviderID and Capabilities, when set, are the id the provider will
	// be registered under and what it will ask for instead of what its
	// code declares (an Adapter Card's adapter.id and
	// requirements.capabilities): LoadProvider's abi.Source.GrantsFor
	// answers for them, so a runtime's sandbox follows the grants the host
	// records.
	ProviderID   string
	Capabilities []string
	// Partial registers what can be: a tool whose name an equally or more
	// trusted provider holds is left out, with a warning, instead of
	// refusing the provider (an imported MCP server's or a remote
	// adapter's tools, which their author cannot rename here).
	Partial bool
	// Replaces is a provider id this registration takes the place of,
	// removed in the same registry snapshot (a provider whose id changed
	// in place: an Adapter Card's adapter.id edited), so that calls find
	// either its tools or the new ones. It is closed like a replaced
	// provider.
	Replaces string
}

// Host is the Tool Manager. It is safe for concurrent use. Make one with
// New: the methods of a zero Host fail with Unavailable (Close returns nil).
type Host struct {
	cfg        *config.Config
	log        *slog.Logger
	reg        *registry.Registry
	spaces     *space.Store
	audit      *audit.Writer
	pol        *policy
	loaders    map[string]abi.Loader // by extension, with the dot, lower case
	ids        *callIDs
	infer      *inferenceClient
	namespaces map[string]Namespace // Options.ToolNamespaces
	decode     *decodeBudget        // limits.max_decode_bytes
	grants     grantCache           // nested-call grants
	obs        observers            // OnCall
	// hints say why a tool is not registered (SetNotFoundHint).
	hints atomic.Pointer[func(tool string) string]

	warned sync.Map     // "provider\x00tool@version" → the RegisteredAt of the definition whose deprecation was logged
	life   sync.RWMutex // registrations (read) against Close (write)
	mu     sync.Mutex
	closed atomic.Bool
	// calls counts the dispatches in progress (nested ones too) and the
	// Space reads outside any call (ReadSpaceAs): Close waits for them
	// before it closes the audit log.
	calls atomic.Int64
}

// New builds a host from opts. It fails on a policy the config cannot
// express (bad capability strings, conflicting loaders), naming the input.
func New(opts Options) (*Host, error) {
	cfg := opts.Config
	if cfg == nil {
		cfg = config.Default()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	pol, err := newPolicy(cfg)
	if err != nil {
		return nil, err
	}
	h := &Host{
		cfg:        cfg,
		log:        log,
		reg:        registry.New(),
		spaces:     opts.Spaces,
		audit:      opts.Audit,
		pol:        pol,
		loaders:    map[string]abi.Loader{},
		ids:        newCallIDs(),
		infer:      newInferenceClient(cfg.Inference, opts.HTTPClient),
		decode:     newDecodeBudget(cfg.Limits.MaxDecodeBytes),
		namespaces: opts.ToolNamespaces,
	}
	mode := registry.SemverWarn
	if m := cfg.Registry.SemverCheck; m != "" {
		if mode, err = registry.ParseSemverCheck(m); err != nil {
			return nil, fmt.Errorf("registry.semver_check: %w", err)
		}
	}
	if err := h.reg.SetSemverCheck(mode, h.warnSemver); err != nil {
		return nil, err
	}
	for i, l := range opts.Loaders {
		if err := h.AddLoader(l); err != nil {
			return nil, fmt.Errorf("Options.Loaders[%d]: %w", i, err)
		}
	}
	return h, nil
}

// warnSemver logs a tool version registered although it breaks callers of
// the version below it without a major version increase.
func (h *Host) warnSemver(v registry.SemverViolation) {
	h.log.Warn("tool version breaks callers of the version below it without a major version increase (SemVer)",
		"tool", v.Tool, "version", v.Version, "provider", v.Provider, "previous", v.Previous,
		"previous_provider", v.PreviousProvider, "breaking", v.FirstChanges(), "changes", len(v.Changes),
		"hint", "release it with a higher major version (registry.semver_check: refuse refuses such versions)")
}

// Registry returns the host's registry (for listing and search).
func (h *Host) Registry() *registry.Registry { return h.reg }

// Spaces returns the Space store (nil when none was configured).
func (h *Host) Spaces() *space.Store { return h.spaces }

// Config returns the configuration the host runs with.
func (h *Host) Config() *config.Config { return h.cfg }

// SetNotFoundHint sets fn to be asked why a called tool is not
// registered: a non-empty answer is added to the call's NotFound message
// (the MCP bridge says its server is not connected). nil removes it.
func (h *Host) SetNotFoundHint(fn func(tool string) string) {
	if fn == nil {
		h.hints.Store(nil)
		return
	}
	h.hints.Store(&fn)
}

// Logger returns the host's logger.
func (h *Host) Logger() *slog.Logger { return h.log }

// record builds the registry record of p, applying the trust policy.
func (h *Host) record(p abi.Provider, meta ProviderMeta) (*registry.ProviderRecord, []abi.ToolDef, error) {
	if p == nil {
		if meta.Source == "" {
			return nil, nil, &abi.ToolError{Code: abi.InvalidRequest, Message: "provider is nil"}
		}
		return nil, nil, &abi.ToolError{Code: abi.InvalidRequest, Message: "provider from " + meta.Source + " is nil"}
	}
	// from names where p came from in messages: an in-process provider
	// added without a Source is named by its Go type ("provider from :"
	// named nothing).
	from := meta.Source
	if from == "" {
		from = fmt.Sprintf("a %T (no ProviderMeta.Source)", p)
	}
	reg, err := describe(p)
	if err != nil {
		return nil, nil, abi.Errorf(abi.InvalidRequest, "provider from %s: %v", from, err)
	}
	if reg == nil {
		return nil, nil, &abi.ToolError{Code: abi.InvalidRequest, Message: "provider from " + from + " describes no registration"}
	}
	if reg.Format != 0 && reg.Format != abi.FormatVersion {
		return nil, nil, abi.Errorf(abi.InvalidRequest, "provider %s (from %s) speaks format version %d; this host knows %d", reg.Provider.ID, from, reg.Format, abi.FormatVersion)
	}
	if err := abi.ValidateProviderID(reg.Provider.ID); err != nil {
		return nil, nil, abi.Errorf(abi.InvalidRequest, "provider from %s: %v", from, err)
	}
	for _, f := range []struct{ name, s string }{{"name", reg.Provider.Name}, {"version", reg.Provider.Version}, {"description", reg.Provider.Description}} {
		if err := abi.CheckText(f.name, f.s); err != nil {
			return nil, nil, abi.Errorf(abi.InvalidRequest, "provider %s (from %s): %v", reg.Provider.ID, from, err)
		}
	}
	if len(reg.Tools) > h.pol.maxTools {
		return nil, nil, abi.Errorf(abi.InvalidRequest, "provider %s (from %s) registers %d tools; the limit is %d (limits.max_tools_per_provider)", reg.Provider.ID, from, len(reg.Tools), h.pol.maxTools)
	}
	if n := registrationBytes(reg, maxRegistrationBytes); n > maxRegistrationBytes {
		return nil, nil, abi.Errorf(abi.InvalidRequest, "provider %s (from %s) registers more than %d bytes of definitions (names, descriptions, tags, examples, schemas); the limit is %d, the most one registration message of a WASM, JS or Python provider holds: shorten its descriptions and schemas",
			reg.Provider.ID, from, maxRegistrationBytes, maxRegistrationBytes)
	}
	if err := h.checkNamespaces(reg, meta); err != nil {
		return nil, nil, err
	}
	if h.pol.disabled(reg.Provider.ID) {
		return nil, nil, abi.Errorf(abi.Unavailable, "provider %s (from %s) is disabled by providers.%s.disabled in the config", reg.Provider.ID, from, reg.Provider.ID)
	}
	requested, err := abi.ParseGrants(reg.Provider.Capabilities)
	if err != nil {
		return nil, nil, abi.Errorf(abi.InvalidRequest, "provider %s (from %s) asks for a bad capability: %v", reg.Provider.ID, from, err)
	}
	for _, c := range requested {
		// Not refused (a provider's request is its author's, not the
		// operator's), but it would grant nothing without a word.
		if why := config.UnmatchableArg(c); why != "" {
			h.log.Warn("provider asks for a capability that grants nothing", "provider", reg.Provider.ID, "source", meta.Source,
				"capability", c.String(), "why", why)
		}
	}
	trust, grants := h.pol.providerGrants(reg.Provider.ID, meta.Source, meta.Trust, requested)
	if bound := h.pol.trustNotApplied(reg.Provider.ID, meta.Source); bound != "" {
		h.log.Warn("provider's configured trust level not applied: it is bound to another source",
			"provider", reg.Provider.ID, "source", meta.Source, "trust", trust.String(),
			"bound_to", bound, "hint", "providers."+reg.Provider.ID+".source names where the provider this level vouches for is loaded from")
	}
	rec := &registry.ProviderRecord{Info: reg.Provider, Trust: trust, Grants: grants, Impl: p, Source: meta.Source}
	dropped := missing(requested, grants)
	if reg.Provider.Runtime == abi.RuntimeMCP {
		// The MCP bridge's Network(host) says where a URL server's tools
		// reach, which their callers need; the bridge's own connection
		// needs no grant (README), so Untrusted's cap dropping it is no
		// news, and the hint (sign a card, vouch for a folder or the id)
		// sent the operator to raise an untrusted server's trust level.
		dropped = slices.DeleteFunc(dropped, func(c string) bool { return strings.HasPrefix(c, abi.CapNetwork+"(") })
	}
	if len(dropped) > 0 {
		h.log.Warn("provider capabilities reduced by trust policy",
			"provider", reg.Provider.ID, "trust", trust.String(), "dropped", dropped,
			"hint", h.pol.whyDropped(reg.Provider.ID, meta.Source, trust, dropped))
	}
	for _, def := range reg.Tools {
		for _, r := range def.CapabilityRequired {
			if c, err := abi.ParseCapability(r); err == nil {
				if why := config.UnmatchableArg(c); why != "" {
					h.log.Warn("tool requires a capability no grant names but a wildcard", "provider", reg.Provider.ID, "tool", def.Name,
						"source", meta.Source, "capability", c.String(), "why", why,
						"hint", "only callers holding a pattern such as "+c.Kind+"(*) may call it: fix its capability_required")
				}
			}
		}
		if names, closed := undeclaredRequired(def.Parameters); len(names) > 0 {
			consequence := "a call must send them although the schema does not describe them"
			if closed {
				consequence = "with additionalProperties: false a call can never succeed"
			}
			h.log.Warn("tool parameters require properties they do not declare",
				"provider", reg.Provider.ID, "tool", def.Name, "source", meta.Source, "undeclared", names,
				"hint", consequence+": declare them under properties, or drop them from required")
		}
	}
	tools := reg.Tools
	if trust < abi.Verified && reg.Provider.Runtime != abi.RuntimeMCP {
		tools = h.screenDefs(rec, tools)
	}
	return rec, tools, nil
}

// checkNamespaces refuses a provider registering a tool in a namespace
// another provider owns (Options.ToolNamespaces): an unsigned plugin
// naming a tool mcp-everything-echo took the name from the MCP bridge,
// and its calls.
func (h *Host) checkNamespaces(reg *abi.ToolRegister, meta ProviderMeta) error {
	if len(h.namespaces) == 0 {
		return nil
	}
	for prefix, ns := range h.namespaces {
		if ns.Source != "" && ns.Provider == reg.Provider.ID && meta.Source != ns.Source {
			return &abi.ToolError{Code: abi.Conflict,
				// Not ns.Source: an MCP server's command line may hold a token.
				Message: fmt.Sprintf("provider %s (from %s) has the id of the provider of %s, which no other may take (it serves the tools %s…): choose another id",
					reg.Provider.ID, meta.Source, ns.Owner, prefix),
				Data: map[string]any{"provider": reg.Provider.ID, "namespace": prefix}}
		}
	}
	for _, def := range reg.Tools {
		prefix := ""
		for k := range h.namespaces {
			if len(k) > len(prefix) && strings.HasPrefix(def.Name, k) {
				prefix = k
			}
		}
		if ns, ok := h.namespaces[prefix]; ok && prefix != "" && ns.Provider != reg.Provider.ID {
			return &abi.ToolError{Code: abi.Conflict,
				Message: fmt.Sprintf("provider %s (from %s) registers tool %s, but the names beginning %q are the tools of %s, served by provider %s: rename the tool",
					reg.Provider.ID, meta.Source, def.Name, prefix, ns.Owner, ns.Provider),
				Data: map[string]any{"tool": def.Name, "namespace": prefix, "registered_by": ns.Provider}}
		}
	}
	return nil
}

// screenDefs screens what a model reads of the tools of a provider below
// Verified (a file dropped in a folder, unsigned or vouched for by its
// folder only) as the MCP bridge screens imported tools (internal/screen,
// strip): hidden characters in its description, examples, deprecation
// note and its schemas' descriptions and titles are removed, and every
// finding (injection-like phrases too, kept) is logged. An instruction
// hidden in a description reached MCP clients' models as it was ("tool
// poisoning"). Imported MCP tools are screened by their server's own
// policy (mcp.servers.NAME.screen). The provider's own registration is not
// changed (a copy is made).
func (h *Host) screenDefs(rec *registry.ProviderRecord, tools []abi.ToolDef) []abi.ToolDef {
	if d, fs := screen.Text(rec.Info.Description, "/provider/description", screen.Strip); len(fs) > 0 {
		h.log.Warn("provider description screened: hidden characters or injection-like phrases",
			"provider", rec.Info.ID, "trust", rec.Trust.String(), "findings", screen.Summary(fs))
		rec.Info.Description = d
	}
	var out []abi.ToolDef
	for i, def := range tools {
		sd, fs := screen.Def(def, screen.Strip)
		if len(fs) == 0 {
			continue
		}
		h.log.Warn("tool definition screened: hidden characters or injection-like phrases",
			"provider", rec.Info.ID, "tool", def.Name, "trust", rec.Trust.String(), "findings", screen.Summary(fs),
			"hint", "a provider below Verified has what a model reads of its tools screened (docs/trust.md, \"Screening\")")
		if out == nil {
			out = append([]abi.ToolDef(nil), tools...)
		}
		out[i] = sd
	}
	if out == nil {
		return tools
	}
	return out
}

// undeclaredRequired returns the names a parameters schema lists in its
// top-level "required" but not in its "properties" (a property renamed in
// one place: every call then fails "missing required property"), and
// whether additionalProperties is false (then no call can succeed). A
// schema with no properties object (a bare {"required": [...]}), or one
// that may declare properties elsewhere (patternProperties, $ref, allOf,
// anyOf, oneOf, if/then/else, dependentSchemas, an additionalProperties
// or unevaluatedProperties schema) is not judged.
func undeclaredRequired(params map[string]any) (names []string, closed bool) {
	props, ok := params["properties"].(map[string]any)
	if !ok {
		return nil, false
	}
	for _, k := range []string{"patternProperties", "$ref", "$dynamicRef", "allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "dependencies"} {
		if _, ok := params[k]; ok {
			return nil, false
		}
	}
	for _, k := range []string{"additionalProperties", "unevaluatedProperties"} {
		if _, ok := params[k].(map[string]any); ok {
			return nil, false
		}
	}
	var req []string
	switch r := params["required"].(type) {
	case []string:
		req = r
	case []any:
		for _, x := range r {
			if n, ok := x.(string); ok {
				req = append(req, n)
			}
		}
	}
	for _, n := range req {
		if _, ok := props[n]; !ok {
			names = append(names, strconv.Quote(n))
		}
	}
	closed = params["additionalProperties"] == false
	return names, closed
}

// missing lists the requested capabilities the granted set does not allow.
func missing(requested, granted abi.Grants) []string {
	var out []string
	for _, c := range requested {
		if !granted.Allows(c) {
			out = append(out, c.String())
		}
	}
	return out
}

// AddProvider registers p's tools. Registration is all-or-nothing: an
// invalid or conflicting tool refuses the whole provider and nothing already
// registered changes. The host owns p afterwards and closes it on
// RemoveProvider or Close; on error the caller still owns it.
func (h *Host) AddProvider(ctx context.Context, p abi.Provider, meta ProviderMeta) error {
	return h.addOrReplace(p, meta, false)
}

// addOrReplace registers p (replace: in place of the provider with its
// id) and closes what it replaced, exactly the records the registry
// reports (two reloads of one id at once close each replaced provider
// once). Registrations and Close exclude each other (h.life): a provider
// registered while the host closes would never be closed.
func (h *Host) addOrReplace(p abi.Provider, meta ProviderMeta, replace bool) error {
	if err := h.unmade(); err != nil {
		return err
	}
	h.life.RLock()
	defer h.life.RUnlock()
	if h.closed.Load() {
		return &abi.ToolError{Code: abi.Unavailable, Message: "host is closed"}
	}
	rec, tools, err := h.record(p, meta)
	if err != nil {
		return err
	}
	rep, tools, err := h.register(rec, tools, registry.Options{Replace: replace, Partial: meta.Partial, Drop: meta.Replaces})
	if err != nil {
		return err
	}
	if rep.Replaced != nil || rep.Dropped != nil {
		h.grants.forget(rep.Replaced, rep.Dropped)
		h.pol.forgetToolBuckets(h.reg)
		for _, old := range []*registry.ProviderRecord{rep.Replaced, rep.Dropped} {
			if old != nil {
				h.forgetWarned(old.Info.ID)
			}
		}
		if rep.Replaced != nil && rep.Replaced.Info.ID != rec.Info.ID {
			h.forgetWarned(rec.Info.ID)
		}
	}
	for _, old := range []*registry.ProviderRecord{rep.Replaced, rep.Dropped} {
		if old != nil && old.Impl != nil && old.Impl != p {
			if err := CloseProvider(old.Impl); err != nil {
				h.log.Warn("closing replaced provider", "provider", old.Info.ID, "err", err)
			}
		}
	}
	switch {
	case meta.Replaces != "" && rep.Dropped != nil:
		h.log.Info("provider swapped for a new id", "provider", rec.Info.ID, "was", meta.Replaces, "tools", len(tools), "source", meta.Source)
	case rep.Replaced != nil:
		h.log.Info("provider replaced", "provider", rec.Info.ID, "tools", len(tools), "source", meta.Source)
	default:
		h.log.Info("provider added", "provider", rec.Info.ID, "runtime", rec.Info.Runtime, "tools", len(tools),
			"trust", rec.Trust.String(), "grants", rec.Grants.Strings(), "source", meta.Source)
	}
	h.noteShared(rec, tools)
	return nil
}

// register registers (or with replace replaces) rec's tools in one
// registry snapshot (registry.Apply): a tool version a less trusted
// provider serves is displaced — that provider keeps its other tools and
// gets the version back when rec withdraws it — and rec's versions a more
// trusted provider serves (with partial, one as trusted too) are left out
// until it goes. Each is logged. It returns the tools rec serves.
func (h *Host) register(rec *registry.ProviderRecord, tools []abi.ToolDef, opts registry.Options) (registry.Report, []abi.ToolDef, error) {
	rep, err := h.reg.Apply(rec, tools, opts)
	if err != nil {
		return rep, nil, err
	}
	for _, d := range rep.Displaced {
		h.log.Warn("tool version displaced by a more trusted provider; served again when that one withdraws it",
			"tool", d.Tool, "version", d.Version, "displaced", d.Provider, "displaced_trust", d.Trust.String(),
			"by", d.By, "trust", d.ByTrust.String())
	}
	for _, d := range rep.LeftOut {
		h.log.Warn("tool left out: another provider serves the version; served if that one withdraws it",
			"provider", d.Provider, "tool", d.Tool, "version", d.Version, "trust", d.Trust.String(),
			"held_by", d.By, "held_by_trust", d.ByTrust.String())
	}
	h.noteRestored(rep.Restored)
	if len(rep.LeftOut) == 0 {
		return rep, tools, nil
	}
	var out []abi.ToolDef
	for _, e := range h.reg.ProviderTools(rec.Info.ID) {
		out = append(out, e.Def)
	}
	return rep, out, nil
}

// noteRestored logs the shadowed tool versions served again.
func (h *Host) noteRestored(rs []registry.Shadow) {
	for _, d := range rs {
		h.log.Info("tool version served again: what shadowed it is gone", "tool", d.Tool, "version", d.Version, "provider", d.Provider)
	}
}

// noteShared warns about each tool name rec shares with other providers
// (allowed at equal or higher trust, docs/registry.md): which provider's
// version a call without a version constraint now reaches.
func (h *Host) noteShared(rec *registry.ProviderRecord, tools []abi.ToolDef) {
	seen := make(map[string]bool, len(tools))
	for _, d := range tools {
		if seen[d.Name] {
			continue
		}
		seen[d.Name] = true
		var others []string
		for _, e := range h.reg.Versions(d.Name) {
			if id := e.Provider.Info.ID; id != rec.Info.ID && !slices.Contains(others, id) {
				others = append(others, id)
			}
		}
		if len(others) == 0 {
			continue
		}
		def, err := h.reg.Resolve(d.Name, "")
		if err != nil {
			continue // removed meanwhile
		}
		h.log.Warn("tool name shared with other providers; calls without a version go to the default",
			"tool", d.Name, "provider", rec.Info.ID, "others", others,
			"default", def.Def.Name+"@"+def.Def.Version+" from "+def.Provider.Info.ID)
	}
}

// ReplaceProvider swaps the provider with p's id for p atomically (hot
// reload): callers see either the old tools or the new ones. The old
// provider is closed after the swap; what happens to its calls in flight
// is its runtime's Close: wasm, component, in-process js and native calls
// run on to their end or deadline, python workers are killed a second
// later (one running an async tool, or waiting in a host call, ends at once) and js worker processes 5 s later (Unavailable, saying the provider
// was closed: nothing crashed), MCP calls end
// Unavailable. A call that resolved the old provider just before the swap
// and reaches it after Close gets Unavailable. discovery's hot reload
// closes a provider only once its calls have drained, and hands such late
// calls to the new one.
func (h *Host) ReplaceProvider(ctx context.Context, p abi.Provider, meta ProviderMeta) error {
	return h.addOrReplace(p, meta, true)
}

// AuditFailing reports why the audit log cannot be written now (calls are
// refused meanwhile), or nil.
func (h *Host) AuditFailing() error { return h.audit.Failing() }

// RemoveProvider unregisters the provider's tools and closes it: exactly
// the record the registry removed (a reload racing the removal is closed
// by whichever of the two replaced it, once). After Close it fails with
// Unavailable "host is closed", as AddProvider does: Close removed every
// provider.
func (h *Host) RemoveProvider(id string) error {
	if err := h.unmade(); err != nil {
		return err
	}
	h.life.RLock()
	defer h.life.RUnlock()
	if h.closed.Load() {
		// Close removes (and closes) every provider: "not registered"
		// named one the embedder added and never removed.
		return &abi.ToolError{Code: abi.Unavailable, Message: "host is closed"}
	}
	rep, err := h.reg.Remove(id)
	if err != nil {
		return err
	}
	h.noteRestored(rep.Restored)
	h.grants.forget(rep.Replaced)
	h.pol.forgetToolBuckets(h.reg)
	h.forgetWarned(id)
	if old := rep.Replaced; old != nil && old.Impl != nil {
		if err := CloseProvider(old.Impl); err != nil {
			return fmt.Errorf("close provider %s: %w", id, err)
		}
	}
	h.log.Info("provider removed", "provider", id)
	return nil
}

// forgetWarned drops the deprecation warning records (Host.warned) of the
// tool versions provider id no longer registers, served or shadowed: all
// of them when it is gone (removed, or swapped for a new id), those a
// reload withdrew.
func (h *Host) forgetWarned(id string) {
	keep := map[string]bool{}
	for _, e := range append(h.reg.ProviderTools(id), h.reg.Shadowed(id)...) {
		keep[id+"\x00"+e.Def.Name+"@"+e.Def.Version] = true
	}
	h.warned.Range(func(k, _ any) bool {
		if s := k.(string); strings.HasPrefix(s, id+"\x00") && !keep[s] {
			h.warned.Delete(k)
		}
		return true
	})
}

// closeDrainWait bounds how long Close waits for the calls in flight.
const closeDrainWait = 5 * time.Second

// Close unregisters and closes every provider, one after the other (a
// provider's Close that blocks holds Close; one that panics is an
// error), waits for the calls in
// flight to end, then closes (and so flushes) the audit log, so that every
// call has its record. Calls arriving afterwards fail with Unavailable.
// What a call in flight does once its provider is closed is its runtime's
// Close (see ReplaceProvider): most run on to their end or deadline. Close
// does not cancel them; it waits at most 5 s (a native handler that
// ignores its ctx, a tool that calls Close itself), then closes the audit
// log anyway and says in its error how many calls were still running:
// their records are dropped (audit.Writer.Dropped). To shut down promptly,
// cancel the contexts of the calls in flight first. Close is safe to call
// more than once and concurrently; the calls after the first return nil
// at once.
//
// Close does not close what the host does not own: the loaders of
// Options.Loaders (close them after the host; a loader's Close may free
// what calls still running use, see its runtime's docs) nor
// Options.Spaces.
func (h *Host) Close() error {
	if h.reg == nil {
		return nil // a zero Host: nothing to close
	}
	h.life.Lock()
	done := h.closed.Swap(true)
	h.life.Unlock()
	if done {
		return nil
	}
	var errs []error
	for _, rec := range h.reg.Providers() {
		rep, err := h.reg.Remove(rec.Info.ID)
		if err != nil {
			continue // removed meanwhile, and closed by whoever removed it
		}
		if old := rep.Replaced; old != nil && old.Impl != nil {
			if err := CloseProvider(old.Impl); err != nil {
				errs = append(errs, fmt.Errorf("close provider %s: %w", rec.Info.ID, err))
			}
		}
	}
	// A completion (a tool waiting on the inference backend, up to
	// inference.timeout) would hold its call past the drain, and go on
	// after Close returned.
	if h.infer != nil {
		h.infer.stop()
	}
	if n := h.drainCalls(closeDrainWait); n > 0 {
		errs = append(errs, fmt.Errorf("%d call(s) still running %v after Close; their audit records are dropped", n, closeDrainWait))
	}
	if h.audit != nil {
		if err := h.audit.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close audit log: %w", err))
		}
	}
	return errors.Join(errs...)
}

// unmade is the error of a zero Host's methods (a Host declared, not
// made with New), which would otherwise dereference its nil parts.
func (h *Host) unmade() *abi.ToolError {
	if h.reg != nil {
		return nil
	}
	return &abi.ToolError{Code: abi.Unavailable, Message: "this host.Host was not made with host.New"}
}

// CloseProvider closes p, turning a panic of its Close (a bug) into an
// error: Close, RemoveProvider and ReplaceProvider go on with the other
// providers and the audit log instead of handing the panic to the
// embedder half done (and discovery, which closes the providers it
// loaded, does the same).
func CloseProvider(p abi.Provider) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("its Close method panicked: %v", r)
		}
	}()
	return p.Close()
}

// drainCalls waits up to wait for the dispatches in progress to end and
// returns how many are left. A dispatch counts itself before it checks
// h.closed, so one that Close's caller set closed before does not start
// unseen.
func (h *Host) drainCalls(wait time.Duration) int64 {
	until := time.Now().Add(wait)
	for {
		n := h.calls.Load()
		if n <= 0 || time.Now().After(until) {
			return n
		}
		time.Sleep(time.Millisecond)
	}
}

// describe returns p.Describe(), turning a panic (a bug of the provider,
// or a typed nil provider) into an error.
func describe(p abi.Provider) (reg *abi.ToolRegister, err error) {
	defer func() {
		if r := recover(); r != nil {
			reg, err = nil, fmt.Errorf("its Describe method panicked: %v", r)
		}
	}()
	return p.Describe(), nil
}

// maxRegistrationBytes bounds the definitions one provider registers: the
// most one registration message of a WASM (runtimes.wasm.max_message_bytes
// by default), JS or Python provider (their frame limit) holds, applied
// to an in-process provider too (native Go, an embedder's abi.Provider),
// whose registration is no message.
const maxRegistrationBytes = abi.DefaultMaxFrame

// registrationBytes is about the JSON size of reg's texts and schemas (at
// their least), the count stopping once it passes limit.
func registrationBytes(reg *abi.ToolRegister, limit int) int {
	pi := &reg.Provider
	n := len(pi.ID) + len(pi.Name) + len(pi.Version) + len(pi.Description)
	for _, c := range pi.Capabilities {
		n += len(c)
	}
	texts := func(ss []string) {
		for _, s := range ss {
			n += len(s) + 3
		}
	}
	schema := func(s map[string]any) {
		if s != nil && n <= limit {
			size, _ := measure(s, limit-n+1)
			n += min(size, limit-n+1) // tooDeep when cut
		}
	}
	for i := range reg.Tools {
		if n > limit {
			break
		}
		d := &reg.Tools[i]
		n += len(d.Name) + len(d.Description) + len(d.Version) + len(d.LatencyClass) + len(d.PermissionLevel)
		texts(d.Tags)
		texts(d.Examples)
		texts(d.CapabilityRequired)
		if dp := d.Deprecation; dp != nil {
			n += len(dp.Since) + len(dp.Message) + len(dp.Replacement)
		}
		schema(d.Parameters)
		schema(d.Returns)
	}
	return n
}
