package host

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// CallStats describes one finished call for an observer (metrics,
// tracing). Every call that reaches the pipeline produces one — top-level
// calls from any front end (CLI, JSON-RPC, MCP) and nested Env.CallTool
// calls alike, refused or served.
type CallStats struct {
	CallID   string
	ParentID string // "" for a top-level call
	Caller   string // the agent, or for a nested call the calling provider
	Tool     string // the tool asked for (its registered name once resolved)
	Version  string // the version that served ("" when the lookup failed)
	Runtime  string // the provider's runtime ("" when the lookup failed)
	Provider string // the provider id ("" when the lookup failed)
	Code     abi.ErrorCode
	Latency  time.Duration
	Nested   bool // made by a tool through Env.CallTool
	Depth    int
}

// OK reports whether the call succeeded.
func (s *CallStats) OK() bool { return s.Code == "" }

// CallObserver receives the stats of each finished call, synchronously on
// the caller's goroutine after the audit entry is queued: it must be
// quick, must not block, and must not call the host.
type CallObserver func(CallStats)

// PoolStats is an optional interface for providers that keep a pool of
// workers or instances (guest instances, interpreter workers). Metrics
// export it per provider. idle + busy is the pool's current size.
type PoolStats interface {
	PoolStats() (idle, busy int)
}

// PoolStatsOf finds p's PoolStats, through the wrappers that have an
// Unwrap() abi.Provider method (discovery's generations and Adapter Card
// wrappers: every provider loaded from a plugin folder sits in one).
func PoolStatsOf(p abi.Provider) (PoolStats, bool) {
	for range 8 {
		if ps, ok := p.(PoolStats); ok {
			return ps, true
		}
		u, ok := p.(interface{ Unwrap() abi.Provider })
		if !ok {
			return nil, false
		}
		if p = u.Unwrap(); p == nil {
			return nil, false
		}
	}
	return nil, false
}

// observers is the host's copy-on-write list of call observers: the hot
// path does one atomic load, and nothing else when it is empty.
type observers struct {
	mu   sync.Mutex
	list atomic.Pointer[[]*observerEntry]
}

type observerEntry struct{ fn CallObserver }

// OnCall registers fn to be called after every call (see CallObserver)
// and returns a function that unregisters it. With no observer
// registered the pipeline does no work and no allocation for observers.
func (h *Host) OnCall(fn CallObserver) (remove func()) {
	if fn == nil {
		return func() {}
	}
	e := &observerEntry{fn: fn}
	o := &h.obs
	o.mu.Lock()
	var next []*observerEntry
	if cur := o.list.Load(); cur != nil {
		next = append(next, *cur...)
	}
	next = append(next, e)
	o.list.Store(&next)
	o.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			o.mu.Lock()
			defer o.mu.Unlock()
			cur := o.list.Load()
			if cur == nil {
				return
			}
			var next []*observerEntry
			for _, x := range *cur {
				if x != e {
					next = append(next, x)
				}
			}
			if len(next) == 0 {
				o.list.Store(nil)
			} else {
				o.list.Store(&next)
			}
		})
	}
}

// notify calls the observers with s. An observer's panic is recovered
// and logged: metrics must never fail a call.
func (h *Host) notify(list []*observerEntry, s CallStats) {
	for _, e := range list {
		h.observe(e.fn, s)
	}
}

func (h *Host) observe(fn CallObserver, s CallStats) {
	defer func() {
		if r := recover(); r != nil {
			h.log.Error("call observer panicked", "tool", s.Tool, "call", s.CallID, "panic", r)
		}
	}()
	fn(s)
}
