package python

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// Provider is one .py file served by a pool of worker processes.
type Provider struct {
	rt   *Runtime
	ip   *interp
	path string
	dir  string
	// readRoot is the file or folder the workers may read: the provider's
	// unit folder, or only its file when it is a bare file in a plugin
	// folder (which holds other providers).
	readRoot string
	// pins is the code workers may run (sent through the start gate; its
	// JSON, made once): a signed provider's pinned files (strict: nothing
	// else of its folder), else the file's digest and source when it
	// loaded, so that a worker started later (pool growth, a replacement)
	// never runs an edited file.
	pins []byte
	log  *slog.Logger
	reg  *abi.ToolRegister
	// id is the provider's id once it has registered, for its workers'
	// stderr lines (read by their goroutines, hence atomic).
	id   atomic.Pointer[string]
	size int
	// network is true when the provider asked for Network(*) and its grants
	// allow it: its workers may open sockets.
	network bool
	// wholeNet is the grant that gives the workers the whole network
	// (Network(*), or Network without a pattern): each call's caller must
	// hold it too (Call).
	wholeNet abi.Capability
	// netHosts are the host patterns of the Network(pattern) capabilities
	// it asked for and holds, when not the whole network: its workers have
	// no network of their own and reach these hosts through the host
	// (net_connect, see netbroker.go).
	netHosts abi.Grants

	idle     chan *worker
	failures atomic.Int32

	closing chan struct{}  // closed by Close
	bg      sync.WaitGroup // replacement workers being started

	mu   sync.Mutex
	live int
	// extra counts the workers started beyond the pool for nested calls
	// of the provider's own tools (see acquire); between such calls
	// they wait in spares.
	extra int
	// replacing counts the workers being started (or waiting out their
	// backoff) in place of ones that ended (replace); replacingSince is
	// when it last rose from 0.
	replacing      int
	replacingSince time.Time
	// starting counts the workers grow is starting for the pool: no call
	// runs on them yet.
	starting int
	// freed is closed (and replaced, by wake) when an extra worker goes or
	// becomes spare, so that nested calls waiting for a worker look again.
	freed chan struct{}
	// spares are extra workers done with their call, kept for the next
	// nested self call for up to spareLinger (a tool fanning its own tools
	// out from a thread pool would otherwise start a worker process per
	// call); reaper stops those that were not taken.
	spares  []spare
	reaper  *time.Timer
	closed  bool
	workers map[*worker]struct{}
}

// maxExtra bounds the workers a provider starts beyond its pool for nested
// calls of its own tools.
func (p *Provider) maxExtra() int { return max(p.size, 8) }

// spareLinger is how long an extra worker waits for another nested self
// call before it is stopped.
const spareLinger = 2 * time.Second

// spare is an extra worker waiting for a nested self call since at.
type spare struct {
	w  *worker
	at time.Time
}

var (
	_ abi.Provider       = (*Provider)(nil)
	_ abi.DeadlineKeeper = (*Provider)(nil)
)

// KeepsDeadlines implements abi.DeadlineKeeper: Call returns by the call's
// deadline on its own (the worker's pipe is read with the deadline, and the
// worker's process group is killed when it passes), so the host calls it on
// the caller's goroutine, without a watcher goroutine and timer per call.
func (p *Provider) KeepsDeadlines() bool { return true }

// PoolStats implements host.PoolStats (the aios_provider_pool metric): the
// idle workers (a spare kept for nested self calls included) and those
// serving calls. A worker being started in place of one that ended
// (replace; maybe waiting out a backoff) is neither: it was counted busy.
func (p *Provider) PoolStats() (idle, busy int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	idle = len(p.idle) + len(p.spares)
	return idle, max(p.live-idle-p.replacing-p.starting, 0)
}

func newProvider(ctx context.Context, rt *Runtime, ip *interp, path string, src abi.Source) (*Provider, error) {
	log := src.Logger
	if log == nil {
		log = rt.log.With("file", path)
	}
	wp, err := pinsFor(path, src)
	if err != nil {
		return nil, err
	}
	if l := rt.Layers(); !l.Disabled && l.Landlock > 0 {
		wp.Landlock = true
	}
	if l := rt.Layers(); !l.Disabled && l.Cgroup != "" && rt.cfg.MaxProcesses > 0 {
		wp.MaxTasks = rt.cfg.MaxProcesses
	}
	pins, err := json.Marshal(wp)
	if err != nil {
		return nil, err
	}
	readRoot := path
	if src.Unit != "" {
		if readRoot, err = filepath.Abs(src.Unit); err != nil {
			return nil, err
		}
	}
	p := &Provider{
		rt: rt, ip: ip, path: path, dir: filepath.Dir(path), readRoot: readRoot, pins: pins,
		log:     log,
		closing: make(chan struct{}),
		size:    rt.cfg.PoolSize,
		idle:    make(chan *worker, rt.cfg.PoolSize),
		workers: make(map[*worker]struct{}),
		freed:   make(chan struct{}),
	}
	w, reg, err := p.startWorker(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.checkRegister(reg, src, w.lines); err != nil {
		w.stop(0)
		return nil, err
	}
	p.reg = reg
	p.id.Store(&reg.Provider.ID)
	// The sandbox follows the grants the host will give the provider (its
	// providers.<id>.trust and .grants included), the ones the registry
	// shows; checkRegister has validated the capabilities.
	requested, _ := abi.ParseGrants(reg.Provider.Capabilities)
	_, grants := src.FinalGrants(reg.Provider.ID, requested)
	p.wholeNet, p.network, p.netHosts = networkAccess(grants)
	if p.network || len(p.netHosts) > 0 {
		// The first worker ran without network; start the pool afresh.
		w.stop(0)
		if w, _, err = p.startWorker(ctx); err != nil {
			return nil, err
		}
		if p.network {
			p.log.Info("python provider holds Network(*): its workers may open sockets; its tools require Network(*) of their callers", "provider", reg.Provider.ID)
			requireWholeNetwork(reg)
		} else {
			p.log.Info("python provider holds Network(host patterns): its workers connect through the host, to matching hosts only",
				"provider", reg.Provider.ID, "hosts", p.NetworkHosts())
		}
	}
	p.workers[w] = struct{}{}
	p.live = 1
	p.idle <- w
	return p, nil
}

// requireWholeNetwork adds Network(*) to what each tool of reg requires of
// its caller (check 1). The workers of a provider holding Network(*) open
// sockets themselves, where the host cannot check each connection against
// the caller's grants as it checks a brokered one (net_connect) and every
// other host service: without it a caller holding no Network had the tool
// connect anywhere for it (TestWholeNetworkNeedsCallerGrant).
func requireWholeNetwork(reg *abi.ToolRegister) {
	const whole = abi.CapNetwork + "(*)"
	for i := range reg.Tools {
		if !slices.Contains(reg.Tools[i].CapabilityRequired, whole) {
			reg.Tools[i].CapabilityRequired = append(slices.Clip(reg.Tools[i].CapabilityRequired), whole)
		}
	}
}

// networkAccess is what the provider's final grants (what it asked for ∩
// what the host allows it) give its workers: the whole network (Network(*),
// or Network without a pattern), or only the hosts matching the patterns
// (lower-cased), brokered by the host.
func networkAccess(grants abi.Grants) (wholeNet abi.Capability, whole bool, hosts abi.Grants) {
	for _, c := range grants {
		if c.Kind != abi.CapNetwork {
			continue
		}
		if !c.HasArg || c.Arg == "*" {
			return c, true, nil
		}
		c.Arg = strings.ToLower(c.Arg)
		if !slices.Contains(hosts, c) {
			hosts = append(hosts, c)
		}
	}
	return abi.Capability{}, false, hosts
}

// checkRegister validates the worker's registration and fills in the id.
// lines name the line of a declaration whose capabilities are refused.
func (p *Provider) checkRegister(reg *abi.ToolRegister, src abi.Source, lines regLines) error {
	at := func(line int) string {
		if line > 0 {
			return fmt.Sprintf("%s:%d", p.path, line)
		}
		return p.path
	}
	if reg.Format != 0 && reg.Format != abi.FormatVersion {
		return fmt.Errorf("%s: registration format %d, want %d", p.path, reg.Format, abi.FormatVersion)
	}
	reg.Format = abi.FormatVersion
	// The file's own id and capabilities come from @Agent(...) or
	// provider(...); the errors named @Agent alone, also to a file that
	// wrote provider(...).
	idFrom, idAt := "@Agent(id=...) or provider(id=...)", at(lines.Provider)
	if src.ProviderID != "" {
		reg.Provider.ID = src.ProviderID
		idFrom, idAt = "the provider id of its card", p.path
	}
	if reg.Provider.ID == "" {
		reg.Provider.ID = src.LocalID()
		idFrom, idAt = "the provider id made from its file name (give one with @Agent(id=...) or provider(id=...))", p.path
	}
	if err := abi.ValidateProviderID(reg.Provider.ID); err != nil {
		return fmt.Errorf("%s: %s: %v", idAt, idFrom, err)
	}
	reg.Provider.Runtime = abi.RuntimePython
	for _, c := range reg.Provider.Capabilities {
		if _, err := abi.ParseCapability(c); err != nil {
			return fmt.Errorf("%s: @Agent(capabilities=...) or provider(capabilities=...): %v", at(lines.Provider), err)
		}
	}
	if len(reg.Tools) == 0 {
		return fmt.Errorf("%s registers no tools", p.path)
	}
	for _, t := range reg.Tools {
		if err := abi.ValidateToolName(t.Name); err != nil {
			return fmt.Errorf("%s: %v", p.path, err)
		}
		for _, c := range t.CapabilityRequired {
			if _, err := abi.ParseCapability(c); err != nil {
				return fmt.Errorf("%s: tool %s capability_required: %v", at(lines.Tools[t.Name]), t.Name, err)
			}
		}
	}
	return nil
}

// readPaths is what Landlock lets a worker read: the interpreter's
// folders, the shared-library folders, the SDK and the tool's unit folder
// (or only its file).
func (p *Provider) readPaths() []roPath {
	var out []roPath
	for _, r := range p.ip.roots {
		out = append(out, roPath{path: r})
	}
	for _, r := range []string{"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/etc/ld.so.cache", "/dev/urandom", p.ip.sdkDir, p.readRoot} {
		out = append(out, roPath{path: r})
	}
	// The machine's public data the standard library reads: without them
	// mimetypes.guess_type raised PermissionError on /etc/mime.types,
	// zoneinfo found no time zone, and ssl no CA certificate, so no HTTPS
	// server could be verified (TestStdlibSystemDataReadable). The CA
	// folders only, never /etc/ssl/private; absent paths get no rule.
	for _, r := range systemData {
		out = append(out, roPath{path: r})
	}
	if p.ip.msgpack != "" && !p.ip.msgpackOnPath {
		// The system's msgpack package for an interpreter that does not
		// have it on its sys.path: that folder only (under /usr/lib
		// already for Debian's; said here for any other place).
		out = append(out, roPath{path: p.ip.msgpack})
	}
	return append(out, roPath{path: "/dev/null", write: true})
}

// systemData lists the machine's public data files and folders a worker
// may read (see readPaths): CA certificates (Debian's /etc/ssl/certs, whose
// hashed names link into /usr/share/ca-certificates; Fedora's
// /etc/pki/tls/certs and /etc/pki/ca-trust/extracted), time zones
// (/usr/share/zoneinfo, /etc/localtime) and MIME types.
var systemData = []string{
	"/etc/ssl/certs", "/usr/share/ca-certificates", "/etc/pki/tls/certs", "/etc/pki/ca-trust/extracted",
	"/etc/ssl/cert.pem", "/usr/share/zoneinfo", "/etc/localtime", "/etc/mime.types",
}

// Describe implements abi.Provider.
func (p *Provider) Describe() *abi.ToolRegister { return p.reg }

// Layers reports the sandbox layers this provider's workers run under.
func (p *Provider) Layers() Layers { return p.rt.Layers() }

// Network reports whether the provider's workers may open sockets (it
// holds Network(*)).
func (p *Provider) Network() bool { return p.network }

// NetworkHosts lists the host patterns the provider's workers may connect
// to through the host (it holds Network(pattern) capabilities, not the
// whole network).
func (p *Provider) NetworkHosts() []string {
	out := make([]string, len(p.netHosts))
	for i, c := range p.netHosts {
		out[i] = c.Arg
	}
	return out
}

// nestKey marks the context of the host calls of a call p's worker serves
// (serveHost): a call that reaches p again with it (through tools of other
// providers and runtimes, whose contexts carry it on) is one that worker
// waits for (runtimes/wasm and runtimes/js do the same). Only a call that
// makes host calls pays for the mark.
type nestKey struct{ p *Provider }

// Call implements abi.Provider: it runs the call on an idle worker (starting
// one if the pool has room, else waiting for one).
func (p *Provider) Call(ctx context.Context, call *abi.ToolCall, env abi.Env) (any, error) {
	if call == nil {
		return nil, abi.NilCall(p)
	}
	if p.network {
		// Its tools require Network(*) of the caller (requireWholeNetwork),
		// but an Adapter Card's capability_required replaces what a tool
		// requires: the call itself is checked too.
		if ck, ok := env.(abi.Checker); ok {
			if err := ck.Check(p.wholeNet); err != nil {
				te := abi.AsToolError(err, abi.CapabilityDenied)
				if te.Code == abi.CapabilityDenied {
					te = &abi.ToolError{Code: te.Code, Data: te.Data, Message: te.Message +
						"; provider " + p.reg.Provider.ID + " holds " + p.wholeNet.String() + ": its workers open sockets themselves, which the host cannot check against the caller's grants one by one"}
				}
				return nil, te
			}
		}
	}
	for retried := false; ; retried = true {
		w, err := p.acquire(ctx, call)
		if err != nil {
			return nil, err
		}
		v, err, broken := w.call(ctx, call, env)
		if broken && abi.CodeOf(err) == abi.Cancelled {
			// The caller's doing, not the tool's: no backoff
			// (TestCancelsDoNotBackOff).
			p.drop(w, false)
		} else if broken {
			p.discard(w)
		} else {
			if p.failures.Load() != 0 {
				p.failures.Store(0)
			}
			if w.worn(time.Now()) || w.memoryHeld(err) || tasksHeld(err) {
				p.recycle(w)
			} else {
				p.release(w)
			}
		}
		// A worker that died before it could read the call: the call
		// never ran, so another worker serves it (once).
		var u *undelivered
		if errors.As(err, &u) {
			if !retried && ctx.Err() == nil {
				continue
			}
			err = u.err
		}
		return v, err
	}
}

func (p *Provider) acquire(ctx context.Context, call *abi.ToolCall) (*worker, error) {
	// A nested call of this provider's own tool (its caller is this
	// provider, or a tool a worker's host call called on the way:
	// nestKey) was made by one of its workers, which waits for it and
	// cannot serve it: with every worker busy in such calls (or a pool of
	// one) waiting for a free worker would last until the deadline. It
	// gets a spare worker beyond the pool (one done with such a call less
	// than spareLinger ago) or starts one, kept after the call for the
	// next such call until spareLinger passes without one.
	self := call.Depth > 0 && (call.Caller == p.reg.Provider.ID || ctx.Value(nestKey{p}) != nil)
	waitStart := time.Now()
	for {
		select {
		case w := <-p.idle:
			if w.alive() {
				return w, nil
			}
			p.discard(w)
			continue
		default:
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, p.closedError(call)
		}
		pooled := p.live - p.extra
		if self && pooled >= p.size && len(p.spares) > 0 {
			w := p.spares[len(p.spares)-1].w
			p.spares = p.spares[:len(p.spares)-1]
			p.mu.Unlock()
			if w.alive() {
				return w, nil
			}
			p.discard(w)
			continue
		}
		extra := pooled >= p.size && self && p.extra < p.maxExtra()
		if pooled < p.size || extra {
			p.live++
			p.starting++
			if extra {
				p.extra++
			}
			// Counted before Close's Wait, as a replacement is (closed
			// is false under this lock).
			p.bg.Add(1)
			p.mu.Unlock()
			started := p.grow(extra)
			for {
				select {
				case r := <-started:
					if r.err != nil {
						return nil, p.startFailed(ctx, call, r.err)
					}
					return r.w, nil
				case w := <-p.idle:
					// A worker freed before the new one started
					// (a slow import): the call takes it, and the
					// new one joins the pool when it has started
					// (TestCallTakesWorkerFreedWhilePoolGrows).
					if !w.alive() {
						p.discard(w)
						continue
					}
					go p.keepStarted(started)
					return w, nil
				case <-ctx.Done():
					go p.keepStarted(started)
					return nil, abi.Errorf(abi.CodeOf(ctxEnded(ctx)), "tool %s: starting a python worker: the call ended while it started (%v); it joins the pool when it has", call.Tool, ctx.Err())
				}
			}
		}
		freed := p.freed
		p.mu.Unlock()
		select {
		case w := <-p.idle:
			if w.alive() {
				return w, nil
			}
			p.discard(w)
		case <-freed:
		case <-ctx.Done():
			te := abi.AsToolError(ctx.Err(), abi.Timeout)
			p.mu.Lock()
			replacing, since, starting := p.replacing, p.replacingSince, p.starting
			p.mu.Unlock()
			state := fmt.Sprintf("all %d of %s busy", p.size, p.reg.Provider.ID)
			if self {
				// A nested call of its own tools also had the workers
				// started beyond the pool for such calls, all busy too
				// (TestDeepSelfNestingSaysExtraWorkers).
				state = fmt.Sprintf("all %d of %s busy, and the %d more it starts for nested calls of its own tools (at most max(pool_size, 8))", p.size, p.reg.Provider.ID, p.maxExtra())
			}
			switch waited := time.Since(waitStart); {
			case replacing > 0 && since.Sub(waitStart) < waited/2:
				// Not busy: a pool size would not help
				// (TestPoolWaitSaysReplacing).
				state = fmt.Sprintf("of the %d of %s, %d being started in place of a worker that ended (see the log), the rest busy", p.size, p.reg.Provider.ID, replacing)
			case replacing > 0:
				// Busy until workers ended late in the wait (killed at
				// a deadline of their calls just before this one's):
				// no crash to look for (TestPoolWaitBusyNotBlamedOnReplacing).
				state += fmt.Sprintf(" for most of its wait (%d of them ended just before it gave up and are being started again)", replacing)
			}
			if starting > 0 {
				// Not all serving calls: a slow import, which a larger
				// pool would not help (TestPoolWaitSaysStarting).
				state += fmt.Sprintf("; %d of them still starting, importing %s (runtimes.python.startup_timeout %v)", starting, filepath.Base(p.path), p.rt.cfg.StartupTimeout)
			}
			te.Message = fmt.Sprintf("tool %s: waiting for a free python worker (%s; runtimes.python.pool_size): %s", call.Tool, state, te.Message)
			return nil, te
		}
	}
}

// started is the end of a worker's start by grow.
type started struct {
	w   *worker
	err error
}

// grow starts a worker for the pool (p.live and p.bg counted by the
// caller, with p.extra when extra), not bound to the call that asked for
// it: a call that takes a worker freed meanwhile leaves the start going on
// (keepStarted), where the start was cut short with the call and the pool
// never grew past a busy worker when its import outlasted the calls'
// deadlines. Close stops the start (a slow import) as it stops a
// replacement's (TestCallStartingWorkerEndsAtClose).
func (p *Provider) grow(extra bool) <-chan started {
	out := make(chan started, 1)
	go func() {
		defer p.bg.Done()
		sctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-p.closing:
				cancel()
			case <-sctx.Done():
			}
		}()
		w, _, err := p.startWorker(sctx)
		p.mu.Lock()
		p.starting--
		p.mu.Unlock()
		if err != nil {
			p.mu.Lock()
			p.live--
			if extra {
				p.extra--
			}
			p.wake() // a waiting call may start one now
			p.mu.Unlock()
			out <- started{err: err}
			return
		}
		w.extra = extra
		if _, err := p.adopt(w); err != nil {
			out <- started{err: errClosed}
			return
		}
		out <- started{w: w}
	}()
	return out
}

// keepStarted puts the worker grow is starting, once started, in the pool
// (a spare when extra) for the next call; its failure is logged.
func (p *Provider) keepStarted(ch <-chan started) {
	r := <-ch
	if r.err != nil {
		if r.err != errClosed && !p.isClosed() {
			p.log.Error("python worker not started", "provider", p.reg.Provider.ID, "err", r.err)
		}
		return
	}
	p.release(r.w)
}

// startFailed is the error of a call whose worker could not be started.
func (p *Provider) startFailed(ctx context.Context, call *abi.ToolCall, err error) error {
	if err == errClosed || p.isClosed() {
		return p.closedError(call)
	}
	// A caller gone or out of time meanwhile is that, not a tool the host
	// cannot serve.
	code := abi.Unavailable
	if cerr := ctxEnded(ctx); cerr != nil {
		code = abi.CodeOf(cerr)
	}
	return abi.Errorf(code, "tool %s: starting a python worker: %v", call.Tool, err)
}

// closedError is the error of a call that finds p closed.
func (p *Provider) closedError(call *abi.ToolCall) error {
	return abi.Errorf(abi.Unavailable, "tool %s: python provider %s is closed (removed, replaced by a reload, or the host shutting down)", call.Tool, p.reg.Provider.ID)
}

// serves reports whether w is one of the provider's workers (registered,
// not yet discarded).
func (p *Provider) serves(w *worker) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.workers[w]
	return ok
}

// adopt adds a new worker to the provider's set (or stops it if the
// provider was closed meanwhile).
func (p *Provider) adopt(w *worker) (*worker, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		p.live--
		if w.extra {
			p.extra--
		}
		w.stop(0)
		return nil, abi.Errorf(abi.Unavailable, "python provider %s is closed", p.reg.Provider.ID)
	}
	p.workers[w] = struct{}{}
	return w, nil
}

func (p *Provider) release(w *worker) {
	p.mu.Lock()
	closed := p.closed
	if w.extra && !closed {
		// Kept for the next nested self call a while (see spares).
		p.spares = append(p.spares, spare{w, time.Now()})
		if p.reaper == nil {
			p.reaper = time.AfterFunc(spareLinger, p.reap)
		}
		p.wake()
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	if closed {
		w.stop(time.Second)
		return
	}
	p.idle <- w // never blocks: at most size workers are not extra
}

// reap stops the spare workers that waited spareLinger for a nested self
// call, and comes back for the others.
func (p *Provider) reap() {
	p.mu.Lock()
	p.reaper = nil
	if p.closed {
		p.mu.Unlock()
		return
	}
	var stop []*worker
	kept := p.spares[:0]
	now := time.Now()
	for _, s := range p.spares {
		if now.Sub(s.at) >= spareLinger {
			p.retire(s.w)
			stop = append(stop, s.w)
		} else {
			kept = append(kept, s)
		}
	}
	clear(p.spares[len(kept):])
	p.spares = kept
	if len(kept) > 0 {
		p.reaper = time.AfterFunc(spareLinger-now.Sub(kept[0].at), p.reap)
	}
	p.mu.Unlock()
	for _, w := range stop {
		w.stop(time.Second)
	}
}

// lostIdle drops worker w, which ended while idle, from the idle workers
// (or the spares) and replaces it now: it stayed there, counted idle by
// PoolStats, until a call took it and found it dead, and that caller waited
// for its replacement to start (TestIdleWorkerDeathReplaced). A worker a
// call has taken meanwhile is that call's to discard.
func (p *Provider) lostIdle(w *worker) {
	p.mu.Lock()
	found := false
	for i, s := range p.spares {
		if s.w == w {
			p.spares = append(p.spares[:i], p.spares[i+1:]...)
			found = true
			break
		}
	}
	if !found {
		// Take out the idle workers and put back the others: the channel
		// never holds more than it did, so putting back never blocks.
		var back []*worker
	drain:
		for {
			select {
			case o := <-p.idle:
				if o == w {
					found = true
				} else {
					back = append(back, o)
				}
			default:
				break drain
			}
		}
		for _, o := range back {
			p.idle <- o
		}
	}
	p.mu.Unlock()
	if found {
		p.discard(w)
	}
}

// wake lets calls waiting for a worker look again (p.mu held): a spare
// freed, or a worker that could not be started (the pool has room again).
func (p *Provider) wake() {
	close(p.freed)
	p.freed = make(chan struct{})
}

// retire drops worker w, one beyond the pool, from the provider's count
// (p.mu held).
func (p *Provider) retire(w *worker) {
	delete(p.workers, w)
	p.live--
	p.extra--
	p.wake()
}

// backoff is the delay before replacing a worker after n failures in a row.
func backoff(n int32) time.Duration {
	if n <= 1 {
		return 0
	}
	d := 50 * time.Millisecond << min(n-2, 7)
	return min(d, 5*time.Second)
}

// discard drops a dead or killed worker and starts a replacement in the
// background, after a backoff that grows with failures in a row.
func (p *Provider) discard(w *worker) { p.drop(w, true) }

// drop is discard; a worker dropped without failing (killed because its
// caller cancelled) is replaced at once and leaves the failures in a row
// as they were.
func (p *Provider) drop(w *worker, failed bool) {
	killGroup(w.pid)
	n := p.failures.Load()
	if failed {
		n = p.failures.Add(1)
	}
	p.mu.Lock()
	if _, ok := p.workers[w]; !ok {
		p.mu.Unlock()
		return
	}
	delete(p.workers, w)
	if p.closed {
		p.live--
		if w.extra {
			p.extra--
		}
		p.mu.Unlock()
		return
	}
	if w.extra { // not replaced
		p.retire(w)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	delay := time.Duration(0)
	if failed {
		delay = backoff(n)
	}
	p.replace(delay)
}

// recycle replaces a worker after a call it served, one that has used
// half of its CPU limit (worker.worn), holds half of its memory limit
// after a MemoryError (worker.memoryHeld) or may hold its task limit after
// a thread or process could not start (tasksHeld): it ends when told (stdin
// closed) and a new one takes its place, without counting as a failure.
func (p *Provider) recycle(w *worker) {
	p.mu.Lock()
	if _, ok := p.workers[w]; !ok || p.closed || w.extra {
		if ok && w.extra && !p.closed {
			p.retire(w) // a spare is not replaced
		}
		p.mu.Unlock()
		w.stop(time.Second)
		return
	}
	delete(p.workers, w)
	p.mu.Unlock()
	w.stop(time.Second)
	p.replace(0)
}

// replace starts, after delay, a worker that takes over the place in live
// of one dropped from the set. Close waits for it.
func (p *Provider) replace(delay time.Duration) {
	// Under the lock, with closed: Close sets it before its bg.Wait, so
	// a replacement either is counted before that Wait or is not started
	// (bg.Add from zero after a Wait began was a WaitGroup misuse).
	p.mu.Lock()
	if p.closed {
		p.live--
		p.wake()
		p.mu.Unlock()
		return
	}
	p.bg.Add(1)
	if p.replacing == 0 {
		p.replacingSince = time.Now()
	}
	p.replacing++
	p.mu.Unlock()
	go func() {
		defer p.bg.Done()
		defer func() {
			p.mu.Lock()
			p.replacing--
			p.mu.Unlock()
		}()
		select {
		case <-time.After(delay):
		case <-p.closing:
		}
		var nw *worker
		err := errClosed
		if !p.isClosed() {
			// Close stops a replacement still starting (a slow import)
			// rather than wait for it.
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				select {
				case <-p.closing:
					cancel()
				case <-ctx.Done():
				}
			}()
			nw, _, err = p.startWorker(ctx)
			cancel()
			if err != nil && p.isClosed() {
				err = errClosed
			}
		}
		if err != nil {
			p.mu.Lock()
			p.live--
			// A call waiting for this worker starts one itself now (and
			// gets the error): it waited its whole deadline and was told
			// every worker was busy (TestFailedReplacementWakesWaiters).
			p.wake()
			p.mu.Unlock()
			if err != errClosed {
				p.log.Error("python worker not replaced", "provider", p.reg.Provider.ID, "err", err)
			}
			return
		}
		if _, err := p.adopt(nw); err == nil {
			p.release(nw)
		}
	}()
}

// Close implements abi.Provider: idle workers exit, busy ones after their
// call (or are killed a second later; a worker running an async tool exits
// at once). A call so ended is Unavailable, saying the provider was closed.
func (p *Provider) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.closing)
	p.wake() // calls waiting for a worker see closed (TestCallWaitingForWorkerEndsAtClose)
	if p.reaper != nil {
		p.reaper.Stop()
		p.reaper = nil
	}
	p.spares = nil // stopped below with every worker
	ws := make([]*worker, 0, len(p.workers))
	for w := range p.workers {
		ws = append(ws, w)
	}
	p.mu.Unlock()
	for _, w := range ws {
		w.stop(time.Second)
	}
	p.bg.Wait() // replacements being started see closed and stop
	return nil
}

var errClosed = errors.New("provider closed")

func (p *Provider) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// WireFormats lists the wire formats its live workers negotiated
// ("msgpack", "json"), one per worker.
func (p *Provider) WireFormats() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.workers))
	for w := range p.workers {
		if w.mp {
			out = append(out, "msgpack")
		} else {
			out = append(out, "json")
		}
	}
	return out
}

// WorkerPIDs lists the process ids of the provider's live workers (for
// monitoring and benchmarks).
func (p *Provider) WorkerPIDs() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	pids := make([]int, 0, len(p.workers))
	for w := range p.workers {
		pids = append(pids, w.pid)
	}
	return pids
}

// workerPins is what a worker may load of the provider's files, by
// absolute path (hex SHA-256 each); with Strict, no other file of its
// folder. Sources are the Python files as the provider loaded them
// (base64): every worker compiles these bytes, so a worker started later
// (pool growth, a replacement after a crash or timeout) runs the version
// that was loaded even when the file has since been edited, broken or
// deleted (hot reload decides about the new version).
type workerPins struct {
	Strict  bool              `json:"strict"`
	Files   map[string]string `json:"files"`
	Sources map[string]string `json:"sources"`
	// Landlock says the worker's files are confined (the SDK then adds
	// what the sandbox allows to a PermissionError a tool fails with).
	Landlock bool `json:"landlock,omitempty"`
	// MaxTasks is the control group's bound on the worker's processes and
	// threads (runtimes.python.max_processes), 0 when none holds: the SDK
	// names it in the error of a fork or thread it refused
	// (TestTaskLimitErrorsNameTheLimit).
	MaxTasks int `json:"max_tasks,omitempty"`
}

// maxShippedSource bounds the Python source a provider keeps to hand its
// workers; files past it are read from disk and checked by digest.
const maxShippedSource = 16 << 20

// maxFolderModules bounds the files of a provider folder looked at for
// its modules, as discovery's digest of a folder is bounded.
const maxFolderModules = 10000

// pinsFor returns the pins of the provider at path loaded from src.
func pinsFor(path string, src abi.Source) (workerPins, error) {
	wp := workerPins{Files: map[string]string{}, Sources: map[string]string{}}
	shipped := 0
	ship := func(p string, want string) error {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		got := hex.EncodeToString(sum[:])
		if want != "" && got != want {
			return fmt.Errorf("%s has sha256 %s, the signed card pins %s", p, got, want)
		}
		wp.Files[p] = got
		if shipped+len(data) <= maxShippedSource {
			wp.Sources[p] = base64.StdEncoding.EncodeToString(data)
			shipped += len(data)
		}
		return nil
	}
	if src.Pinned == nil {
		if err := ship(path, ""); err != nil {
			return workerPins{}, err
		}
		if src.Unit != "" {
			// A provider folder's modules are shipped as they are now,
			// as its tool file is: a worker started later imports
			// them, not a helpers.py being saved or edited since
			// (TestLaterWorkerImportsLoadedHelpers). A file that
			// cannot be read is left to the import to say.
			dir, err := filepath.Abs(filepath.Dir(path))
			if err != nil {
				return workerPins{}, err
			}
			unit, err := filepath.Abs(src.Unit)
			if err != nil {
				return workerPins{}, err
			}
			if rel, err := filepath.Rel(unit, dir); err != nil || !filepath.IsLocal(rel) && rel != "." {
				return wp, nil // not inside its folder: nothing of it is shipped
			}
			n := 0
			_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
				if err != nil || p == dir {
					return nil
				}
				name := e.Name()
				if e.IsDir() {
					if strings.HasPrefix(name, ".") || name == "__pycache__" || name == "node_modules" {
						return filepath.SkipDir
					}
					return nil
				}
				if n++; n > maxFolderModules {
					return filepath.SkipAll
				}
				if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".py") || !e.Type().IsRegular() {
					return nil
				}
				if _, ok := wp.Files[p]; !ok {
					_ = ship(p, "")
				}
				return nil
			})
		}
		return wp, nil
	}
	if _, ok := src.Pinned[path]; !ok {
		return workerPins{}, fmt.Errorf("%s is not among the files its signed card pins", path)
	}
	wp.Strict = true
	if err := ship(path, src.Pinned[path]); err != nil {
		return workerPins{}, err
	}
	for p, want := range src.Pinned {
		if p == path {
			continue
		}
		if !strings.HasSuffix(p, ".py") {
			wp.Files[p] = want
			continue
		}
		if err := ship(p, want); err != nil {
			return workerPins{}, err
		}
	}
	return wp, nil
}
