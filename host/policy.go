package host

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/internal/ratelimit"
	"github.com/aios-host/aios-host/registry"
)

// agentPolicy is what the host knows of one configured agent.
type agentPolicy struct {
	name   string
	grants abi.Grants
	lim    *ratelimit.Limiter // nil: no per-caller limit
	// maxPerm is the highest tool permission level the agent may call
	// (config.PermissionRank; agents.<name>.max_permission).
	maxPerm int8
}

// policy is the immutable, pre-parsed form of the config's security and
// limit sections, built once by New so the hot path does no parsing and
// takes no lock.
type policy struct {
	agents     map[string]*agentPolicy
	agentNames []string // sorted, for error messages

	toolLims map[string]*ratelimit.Limiter // by tool name (rate_limits.per_tool)
	// toolPats are the per_tool keys with wildcards, longest first: each
	// gives every tool it matches (and that has no limit by its exact name)
	// a bucket of its own, made at the tool's first call (patLims).
	toolPats []toolPattern
	patLims  sync.Map                      // tool name → *ratelimit.Limiter (nil: no pattern matches)
	provLims map[string]*ratelimit.Limiter // by provider id (providers.<id>.rate)
	global   *ratelimit.Limiter

	trustCaps [abi.System + 1]abi.Grants
	overrides map[string]providerOverride
	// disabledSeen holds the ids of the providers a disabled override
	// kept from loading (DisabledSeen): an override of providers.<id>
	// that never does names, most likely, a misspelt id.
	disabledSeen sync.Map // provider id → true

	maxParams, maxResult, maxDepth int
	maxTools                       int   // tools one provider may register
	maxPluginBytes                 int64 // largest plugin file read
	deadline, maxDeadline          time.Duration
}

type providerOverride struct {
	disabled  bool
	grants    abi.Grants
	hasGrants bool
	trust     abi.TrustLevel
	hasTrust  bool
	// cfg is the config's entry, for its Source (TrustAppliesTo).
	cfg config.ProviderOverride
}

// newLimiter makes the limiter of r (nil for none); key is the config
// key that set it, which a refused call's error names.
func newLimiter(r *config.Rate, key string) *ratelimit.Limiter {
	if r == nil || r.PerSecond <= 0 {
		return nil
	}
	l := ratelimit.New(r.PerSecond, r.BurstOf())
	l.Name = key
	return l
}

// longestDeadline bounds limits.default_deadline and max_deadline: a
// longer one counts as this long. A deadline past the year 2262 has no
// Unix time in nanoseconds (time.Time.UnixNano overflows), and the
// runtimes that keep deadlines so (wasm, js) took such a "no deadline" for
// one long past and stopped every call at once.
const longestDeadline = 100 * 365 * 24 * time.Hour

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// newPolicy pre-parses cfg. Errors name the config key at fault.
func newPolicy(cfg *config.Config) (*policy, error) {
	p := &policy{
		agents:         map[string]*agentPolicy{},
		toolLims:       map[string]*ratelimit.Limiter{},
		provLims:       map[string]*ratelimit.Limiter{},
		overrides:      map[string]providerOverride{},
		global:         newLimiter(cfg.RateLimits.Global, "rate_limits.global"),
		maxParams:      orDefault(cfg.Limits.MaxParamsBytes, config.DefaultMaxParamsBytes),
		maxResult:      orDefault(cfg.Limits.MaxResultBytes, config.DefaultMaxResultBytes),
		maxDepth:       orDefault(cfg.Limits.MaxCallDepth, config.DefaultMaxCallDepth),
		maxTools:       orDefault(cfg.Limits.MaxToolsPerProvider, config.DefaultMaxTools),
		maxPluginBytes: orDefault(cfg.Limits.MaxPluginBytes, config.DefaultMaxPluginBytes),
		deadline:       min(orDefault(cfg.Limits.DefaultDeadline, config.DefaultDeadline), longestDeadline),
		maxDeadline:    min(orDefault(cfg.Limits.MaxDeadline, config.DefaultMaxDeadline), longestDeadline),
	}
	for name, a := range cfg.Agents {
		g, err := abi.ParseGrants(a.Grants)
		if err != nil {
			return nil, fmt.Errorf("config: agents.%s.grants: %w", name, err)
		}
		level := cfg.AgentMaxPermission(name)
		rank, ok := config.PermissionRank(level)
		if !ok {
			return nil, fmt.Errorf("config: agents.%s.max_permission: %q is not one of public, low, medium, high, critical", name, level)
		}
		ap := &agentPolicy{name: name, grants: g, lim: newLimiter(cfg.RateLimits.PerCaller, "rate_limits.per_caller"), maxPerm: int8(rank)}
		if a.Rate != nil {
			ap.lim = newLimiter(a.Rate, config.JoinKey("agents", name)+".rate")
		}
		p.agents[name] = ap
		p.agentNames = append(p.agentNames, name)
	}
	sort.Strings(p.agentNames)
	for tool, r := range cfg.RateLimits.PerTool {
		if strings.ContainsAny(tool, "*?") {
			if r.PerSecond > 0 {
				p.toolPats = append(p.toolPats, toolPattern{pattern: tool, rate: r})
			}
			continue
		}
		if l := newLimiter(&r, config.JoinKey("rate_limits.per_tool", tool)); l != nil {
			p.toolLims[tool] = l
		}
	}
	sort.Slice(p.toolPats, func(i, j int) bool {
		a, b := p.toolPats[i].pattern, p.toolPats[j].pattern
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		return a < b
	})
	defaults := config.DefaultTrustCaps()
	for level := abi.Untrusted; level <= abi.System; level++ {
		caps, ok := cfg.TrustCapsOf(level)
		if !ok {
			caps = defaults[level.String()]
		}
		g, err := abi.ParseGrants(caps)
		if err != nil {
			return nil, fmt.Errorf("config: trust.caps.%s: %w", level, err)
		}
		p.trustCaps[level] = g
	}
	for id, o := range cfg.Providers {
		ov := providerOverride{disabled: o.Disabled, cfg: o}
		if o.Trust != "" {
			t, err := abi.ParseTrustLevel(o.Trust)
			if err != nil {
				return nil, fmt.Errorf("config: providers.%s.trust: %w", id, err)
			}
			ov.trust, ov.hasTrust = t, true
		}
		if o.Grants != nil {
			g, err := abi.ParseGrants(o.Grants)
			if err != nil {
				return nil, fmt.Errorf("config: providers.%s.grants: %w", id, err)
			}
			ov.grants, ov.hasGrants = g, true
		}
		if l := newLimiter(o.Rate, config.JoinKey("providers", id)+".rate"); l != nil {
			p.provLims[id] = l
		}
		p.overrides[id] = ov
	}
	return p, nil
}

// toolPattern is a rate_limits.per_tool key with wildcards.
type toolPattern struct {
	pattern string
	rate    config.Rate
}

// toolLimiter is tool's rate_limits.per_tool limiter: by its exact name,
// else the bucket of its own that the longest matching pattern gives it;
// nil when none applies.
func (p *policy) toolLimiter(tool string) *ratelimit.Limiter {
	if l := p.toolLims[tool]; l != nil {
		return l
	}
	if len(p.toolPats) == 0 {
		return nil
	}
	if v, ok := p.patLims.Load(tool); ok {
		return v.(*ratelimit.Limiter)
	}
	var l *ratelimit.Limiter
	for _, tp := range p.toolPats {
		if abi.Glob(tp.pattern, tool) {
			l = newLimiter(&tp.rate, config.JoinKey("rate_limits.per_tool", tp.pattern))
			break
		}
	}
	v, _ := p.patLims.LoadOrStore(tool, l)
	return v.(*ratelimit.Limiter)
}

// forgetToolBuckets releases the patLims buckets of the tools reg no
// longer registers under any version (a provider removed, or reloaded
// without them): kept, they grew with every tool name ever called. A tool
// reloaded under its name keeps its bucket. A call that resolved a tool
// just before its removal may make its bucket again: the next change
// releases it.
func (p *policy) forgetToolBuckets(reg *registry.Registry) {
	if len(p.toolPats) == 0 {
		return
	}
	p.patLims.Range(func(k, _ any) bool {
		if len(reg.Versions(k.(string))) == 0 {
			p.patLims.Delete(k)
		}
		return true
	})
}

// trustCap returns the most a provider at level t may hold.
func (p *policy) trustCap(t abi.TrustLevel) abi.Grants {
	if t < abi.Untrusted || t > abi.System {
		t = abi.Untrusted
	}
	return p.trustCaps[t]
}

// providerGrants computes a provider's trust level and effective grants:
// what it asks for ∩ what its trust level allows ∩ the config's override
// grants for that provider (when set: an override can only narrow). An
// override may also set the trust level: for a provider loaded from its
// providers.<id>.source when that is set (config.TrustAppliesTo).
func (p *policy) providerGrants(id, source string, trust abi.TrustLevel, requested abi.Grants) (abi.TrustLevel, abi.Grants) {
	ov, hasOv := p.overrides[id]
	if hasOv && ov.hasTrust && ov.cfg.TrustAppliesTo(source) {
		trust = ov.trust
	}
	if trust < abi.Untrusted || trust > abi.System {
		trust = abi.Untrusted
	}
	g := abi.Intersect(requested, p.trustCaps[trust])
	if hasOv && ov.hasGrants {
		g = abi.Intersect(g, ov.grants)
	}
	return trust, g
}

// whyDropped says which setting keeps the capabilities dropped (asked for
// by provider id loaded from source, at level trust) from it:
// providers.<id>.grants for those its trust level's caps allow but that
// list does not, trust.caps for the others. A provider narrowed by its
// grants was told to raise its trust level, which changes nothing; one
// whose providers.<id>.trust is bound to another source was told to set
// providers.<id>.trust, which is set.
func (p *policy) whyDropped(id, source string, trust abi.TrustLevel, dropped []string) string {
	var byGrants, byTrust []string
	ov := p.overrides[id]
	for _, s := range dropped {
		c, err := abi.ParseCapability(s)
		if err == nil && ov.hasGrants && !ov.grants.Allows(c) && p.trustCap(trust).Allows(c) {
			byGrants = append(byGrants, s)
		} else {
			byTrust = append(byTrust, s)
		}
	}
	var why []string
	if len(byGrants) > 0 {
		why = append(why, "providers."+id+".grants in the config does not include "+strings.Join(byGrants, ", ")+
			" (it narrows what the provider holds): add it there, or remove that list")
	}
	if len(byTrust) > 0 {
		what := "it"
		if len(dropped) > 1 {
			what = strings.Join(byTrust, ", ")
		}
		hint := trustHint
		if bound := p.trustNotApplied(id, source); bound != "" && p.levelAllows(p.overrides[id].trust, byTrust) {
			hint = "providers." + id + ".trust (" + p.overrides[id].cfg.Trust + ") is not applied: it is bound to providers." + id + ".source " +
				strconv.Quote(bound) + ", and this provider is loaded from " + strconv.Quote(source) +
				": set the source to where it is loaded from, or sign its Adapter Card, or vouch for its plugin folder (trust.folders); see docs/trust.md"
		}
		why = append(why, "trust level "+trust.String()+" does not allow "+what+" (trust.caps): "+hint)
	}
	return strings.Join(why, "; ")
}

// levelAllows reports whether trust level t's caps allow every one of
// caps.
func (p *policy) levelAllows(t abi.TrustLevel, caps []string) bool {
	for _, s := range caps {
		if c, err := abi.ParseCapability(s); err != nil || !p.trustCap(t).Allows(c) {
			return false
		}
	}
	return true
}

// trustNotApplied returns the providers.<id>.source that kept the
// configured trust level from a provider of id loaded from source, or ""
// when the level applies (or none is set).
func (p *policy) trustNotApplied(id, source string) string {
	ov, ok := p.overrides[id]
	if !ok || !ov.hasTrust || ov.cfg.TrustAppliesTo(source) {
		return ""
	}
	return ov.cfg.Source
}

// disabled reports whether the config disables provider id, noting a
// disabled one as seen (Host.DisabledSeen).
func (p *policy) disabled(id string) bool {
	if !p.overrides[id].disabled {
		return false
	}
	p.disabledSeen.Store(id, true)
	return true
}
