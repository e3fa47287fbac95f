package discovery

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// cardProvider serves an artifact's tools under its card: the card's
// adapter id, name, version and requested capabilities replace the
// artifact's, and each skill's metadata overrides the artifact tool of the
// same name. Tools the card does not list keep the artifact's definition.
type cardProvider struct {
	inner abi.Provider
	reg   *abi.ToolRegister
	// gate refuses calls while the card's requirements.software is not
	// installed (nil: the card names none).
	gate *softwareGate
}

// BindCard wraps inner (loaded from the card's artifact) so it registers as
// the card describes. Every skill must be a tool the artifact offers.
func BindCard(inner abi.Provider, c *Card) (abi.Provider, error) {
	ir := inner.Describe()
	if ir == nil {
		return nil, fmt.Errorf("artifact of %s describes no registration", c.Adapter.ID)
	}
	byName := make(map[string]int, len(ir.Tools))
	for i, t := range ir.Tools {
		byName[t.Name] = i
	}
	tools := append([]abi.ToolDef(nil), ir.Tools...)
	for _, s := range c.Skills {
		i, ok := byName[s.ID]
		if !ok {
			names := make([]string, 0, len(ir.Tools))
			for _, t := range ir.Tools {
				names = append(names, t.Name)
			}
			sort.Strings(names)
			return nil, fmt.Errorf("card %s: skill %q is not offered by its artifact (it offers: %s)", c.Adapter.ID, s.ID, strings.Join(names, ", "))
		}
		tools[i] = mergeTool(tools[i], s, c.Adapter.Version)
	}
	info := ir.Provider
	info.ID, info.Name, info.Version = c.Adapter.ID, c.Adapter.Name, c.Adapter.Version
	if c.Adapter.Description != "" {
		info.Description = c.Adapter.Description
	}
	if c.Requirements != nil && c.Requirements.Capabilities != nil {
		info.Capabilities = c.Requirements.Capabilities
	}
	return &cardProvider{inner: inner, reg: &abi.ToolRegister{Format: abi.FormatVersion, Provider: info, Tools: tools}}, nil
}

// mergeTool lets the skill's non-empty members override the tool's.
func mergeTool(t abi.ToolDef, s Skill, version string) abi.ToolDef {
	if s.Description != "" {
		t.Description = s.Description
	} else if t.Description == "" {
		t.Description = s.Name
	}
	if s.InputSchema != nil {
		t.Parameters = s.InputSchema
	}
	if s.OutputSchema != nil {
		t.Returns = s.OutputSchema
	}
	if s.CapabilityRequired != nil {
		t.CapabilityRequired = s.CapabilityRequired
	}
	if s.Version != "" {
		t.Version = s.Version
	} else {
		t.Version = version
	}
	if s.Tags != nil {
		t.Tags = s.Tags
	}
	if s.Examples != nil {
		t.Examples = s.Examples
	}
	if s.LatencyClass != "" {
		t.LatencyClass = s.LatencyClass
	}
	t.PermissionLevel = s.PermissionLevel
	t.Idempotent = t.Idempotent || s.Idempotent
	t.MCPExportable = t.MCPExportable || s.MCPExportable
	t.Deprecated = t.Deprecated || s.Deprecated
	return t
}

func (p *cardProvider) Describe() *abi.ToolRegister { return p.reg }
func (p *cardProvider) Call(ctx context.Context, call *abi.ToolCall, env abi.Env) (any, error) {
	if call == nil {
		return nil, abi.NilCall(p)
	}
	if err := p.gate.check(); err != nil {
		return nil, err
	}
	return p.inner.Call(ctx, call, env)
}
func (p *cardProvider) Close() error { return p.inner.Close() }

// KeepsDeadlines is the artifact's (abi.DeadlineKeeper): the host calls
// a provider that returns by the deadline on its own on the caller's
// goroutine, without a watcher goroutine and timer per call.
func (p *cardProvider) KeepsDeadlines() bool { return keepsDeadlines(p.inner) }

// Unwrap is the artifact's provider, for what reads a runtime's own
// optional interfaces (host.PoolStats, for /metrics).
func (p *cardProvider) Unwrap() abi.Provider { return p.inner }

func keepsDeadlines(p abi.Provider) bool {
	k, ok := p.(abi.DeadlineKeeper)
	return ok && k.KeepsDeadlines()
}

// callWithin calls p, waiting at most a grace past call's deadline
// (host.CallWatched): for a call forwarded from a generation that keeps
// deadlines (so the host does not watch it) to one whose provider does not.
func callWithin(p abi.Provider, ctx context.Context, call *abi.ToolCall, env abi.Env) (any, error) {
	if call.Deadline.IsZero() {
		return p.Call(ctx, call, env)
	}
	return host.CallWatched(p, ctx, call, env, call.Deadline)
}

// sharedProvider is a loaded provider with several holders: discovery,
// while the candidate that loaded it is known (serving or shadowed), and
// every generation wrapping it, until that generation drains. The last
// holder to let go closes it. So a candidate displaced by a better one
// (whose generation the host closes on the swap) keeps a live provider and
// can serve again when the better one goes.
type sharedProvider struct {
	p abi.Provider

	// closeFailed hears of an error from p's Close (nil: dropped).
	closeFailed func(error)

	mu     sync.Mutex
	refs   int
	closed bool
}

func newShared(p abi.Provider, closeFailed func(error)) *sharedProvider {
	return &sharedProvider{p: p, refs: 1, closeFailed: closeFailed}
}

func (s *sharedProvider) acquire() {
	s.mu.Lock()
	s.refs++
	s.mu.Unlock()
}

// release drops one hold; the last closes the provider.
func (s *sharedProvider) release() error {
	s.mu.Lock()
	s.refs--
	last := s.refs == 0 && !s.closed
	if last {
		s.closed = true
	}
	s.mu.Unlock()
	if last {
		err := closeWithin(s.p, closeWait)
		if err != nil && s.closeFailed != nil {
			s.closeFailed(err)
		}
		return err
	}
	return nil
}

// closeWait bounds how long discovery waits for a provider's Close (a
// var for tests). The runtimes' own Close waits are shorter: a js worker's
// 5 s grace, an MCP server's stdin-then-SIGTERM-then-SIGKILL seconds.
var closeWait = 10 * time.Second

// closeWithin closes p (host.CloseProvider: a panic of its Close is an
// error, where the last holder is a watcher goroutine, whose panic ended
// the process, or a call that drained a replaced version, which answered
// ProviderCrashed), waiting at most wait: discovery
// closes with its lock held (an unload) or on the return of the last call
// of a replaced version, so a Close that never returns stopped every
// later load, reload and unload, Discovery.Close, or that call. Past wait
// the Close is left running and its lateness is the error.
func closeWithin(p abi.Provider, wait time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- host.CloseProvider(p) }()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return fmt.Errorf("its Close has not returned after %v; going on without it (it is left running)", wait)
	}
}

// generation is one registration of a provider with the host. Close does
// not let go of the wrapped provider while calls are in flight: the last
// call to finish does. A call that reaches a generation after Close (it
// looked the tool up just before a hot swap) is handed to the provider's
// current generation, so a swap never fails a call.
type generation struct {
	inner   abi.Provider
	shared  *sharedProvider    // inner, held until the generation drains
	current func() *generation // the live generation for this provider id
	// next is the generation that took this one's place under another
	// provider id (the unit's id was edited): calls reaching this one
	// after it closed go there.
	next atomic.Pointer[generation]
	// trust is the level the host registered this generation at: a call
	// resolved here holds that level's grants, so it is not forwarded to
	// a less trusted generation.
	trust abi.TrustLevel
	// grants are what the host grants this generation's provider under
	// its id (servedGrants): a call resolved here holds them, so it is
	// not forwarded to a generation that holds less (the unit's id was
	// edited, and the config narrows the new id: providers.<id>.grants).
	grants abi.Grants

	mu       sync.Mutex
	inflight int
	closing  bool
	closed   bool
	drained  chan struct{}
}

// newGeneration wraps s's provider; it takes a hold on s, which it gives
// back when it has been closed and drained (or with abandon).
func newGeneration(s *sharedProvider, current func() *generation) *generation {
	s.acquire()
	return &generation{inner: s.p, shared: s, current: current, drained: make(chan struct{})}
}

// abandon gives back the hold of a generation the host never took.
func (g *generation) abandon() {
	g.mu.Lock()
	done := g.closed
	g.closing, g.closed = true, true
	g.mu.Unlock()
	if !done {
		_ = g.shared.release()
		close(g.drained)
	}
}

func (g *generation) Describe() *abi.ToolRegister { return g.inner.Describe() }

// KeepsDeadlines is the wrapped provider's (abi.DeadlineKeeper): without
// it every call of a discovered provider ran under the host's watcher
// goroutine and timer, which the runtimes that interrupt their guests at
// the deadline exist to avoid.
func (g *generation) KeepsDeadlines() bool { return keepsDeadlines(g.inner) }

// Unwrap is the wrapped provider, for what reads a runtime's own optional
// interfaces (host.PoolStats, for /metrics).
func (g *generation) Unwrap() abi.Provider { return g.inner }

// Health forwards the inner provider's health check (a remote adapter's
// endpoints.health probe, RemoteProvider.Health); others are healthy.
func (g *generation) Health() (bool, string) {
	if h, ok := g.inner.(interface{ Health() (bool, string) }); ok {
		return h.Health()
	}
	return true, ""
}

func (g *generation) Call(ctx context.Context, call *abi.ToolCall, env abi.Env) (any, error) {
	if call == nil {
		return nil, abi.NilCall(g)
	}
	g.mu.Lock()
	if g.closing {
		g.mu.Unlock()
		cur := g.current()
		if cur == nil || cur == g {
			cur = g.next.Load()
		}
		if cur != nil && cur != g {
			why := changedFor(g.inner.Describe(), cur.inner.Describe(), call)
			if why == "" && cur.trust < g.trust {
				// The call holds this generation's grants: not lent to
				// less trusted code (to more trusted code they are no
				// more than it may hold).
				why = "its provider is now served at trust level " + cur.trust.String() + " (was " + g.trust.String() + ")"
			}
			if why == "" {
				for _, c := range g.grants {
					if !cur.grants.Allows(c) {
						// The same: the call holds this generation's
						// grants, not lent to code granted less.
						why = "its provider now holds less (not " + c.String() + ")"
						break
					}
				}
			}
			if why != "" {
				// The pipeline checked this call (capabilities,
				// permission, parameters) against the old definition:
				// the new code must not serve it unchecked.
				return nil, abi.Errorf(abi.Unavailable, "tool %s@%s was reloaded while this call started and %s; call it again", call.Tool, call.Version, why)
			}
			// The new code serves it: its record names that version.
			if r, ok := env.(abi.VersionReporter); ok {
				if reg := cur.inner.Describe(); reg != nil {
					if n := toolOf(reg, call); n != nil {
						if v := defVersion(reg, n); v != call.Version {
							r.ServedVersion(v)
						}
					}
				}
			}
			if g.KeepsDeadlines() && !cur.KeepsDeadlines() {
				return callWithin(cur, ctx, call, env)
			}
			return cur.Call(ctx, call, env)
		}
		return nil, abi.Errorf(abi.Unavailable, "tool %s@%s: its provider %s was unloaded while this call started", call.Tool, call.Version, g.inner.Describe().Provider.ID)
	}
	g.inflight++
	g.mu.Unlock()
	defer g.release()
	return g.inner.Call(ctx, call, env)
}

// changedFor says how the reload from old to cur changed what the pipeline
// checked a call of call.Tool against ("" when nothing did): the tool's
// parameters, result schema, required capabilities or permission level,
// or the capabilities the provider asks for (its grants).
func changedFor(old, cur *abi.ToolRegister, call *abi.ToolCall) string {
	if old == nil || cur == nil {
		return ""
	}
	o := toolOf(old, call)
	if o == nil {
		return "" // not a tool the old version knew: as before
	}
	n := toolOf(cur, call)
	switch {
	case n == nil:
		return "the new version has no such tool"
	case versionBreaks(call.Version, defVersion(cur, n)):
		return "its version changed from " + call.Version + " to " + defVersion(cur, n) + ", which callers of " + call.Version + " cannot count on"
	case !reflect.DeepEqual(o.Parameters, n.Parameters):
		return "its parameters changed"
	case !reflect.DeepEqual(o.Returns, n.Returns):
		return "its result schema changed"
	case !slices.Equal(o.CapabilityRequired, n.CapabilityRequired):
		return "the capabilities it requires changed"
	case o.PermissionLevel != n.PermissionLevel:
		return "its permission level changed"
	case !slices.Equal(old.Provider.Capabilities, cur.Provider.Capabilities):
		return "the capabilities its provider asks for changed"
	}
	return ""
}

// defVersion is def's version in r (the provider's when def has none).
func defVersion(r *abi.ToolRegister, def *abi.ToolDef) string {
	if def.Version != "" {
		return def.Version
	}
	return r.Provider.Version
}

// versionBreaks reports whether a call the pipeline resolved at version
// from may not be served by version to: an older version, or a newer one
// of another major (for 0.x, of another minor), which SemVer lets break
// its callers (a caller asking for ^1 keeps away from 2.0.0). A later
// compatible version (a patch or minor release) may serve it, as a new
// call would be served. Versions that do not parse are not judged.
func versionBreaks(from, to string) bool {
	if from == to || from == "" || to == "" {
		return false
	}
	f, err1 := semver.StrictNewVersion(from)
	t, err2 := semver.StrictNewVersion(to)
	if err1 != nil || err2 != nil {
		return false
	}
	switch {
	case t.LessThan(f), t.Major() != f.Major():
		return true
	case t.Major() == 0 && t.Minor() != f.Minor():
		return true
	}
	return false
}

// toolOf finds the definition of call's tool in r: the one of its name and
// version (a definition without a version has the provider's), else the
// only one of its name.
func toolOf(r *abi.ToolRegister, call *abi.ToolCall) *abi.ToolDef {
	var only *abi.ToolDef
	n := 0
	for i := range r.Tools {
		t := &r.Tools[i]
		if t.Name != call.Tool {
			continue
		}
		v := t.Version
		if v == "" {
			v = r.Provider.Version
		}
		if v == call.Version {
			return t
		}
		only = t
		n++
	}
	if n == 1 {
		return only
	}
	return nil
}

func (g *generation) release() {
	g.mu.Lock()
	g.inflight--
	last := g.closing && g.inflight == 0 && !g.closed
	if last {
		g.closed = true
	}
	g.mu.Unlock()
	if last {
		g.finish()
	}
}

func (g *generation) finish() {
	_ = g.shared.release() // an error is logged by the shared provider
	close(g.drained)
}

// Close marks the generation closing; its hold on the provider is given
// back now if idle, else when its last call returns (the provider closes
// when discovery no longer keeps it either).
func (g *generation) Close() error {
	g.mu.Lock()
	if g.closing {
		g.mu.Unlock()
		return nil
	}
	g.closing = true
	now := g.inflight == 0 && !g.closed
	if now {
		g.closed = true
	}
	g.mu.Unlock()
	if now {
		g.finish()
	}
	return nil
}
