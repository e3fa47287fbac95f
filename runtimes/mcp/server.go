package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"os/exec"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/screen"
	"github.com/aios-host/aios-host/internal/wire"
)

// server is the connection to one MCP server: a goroutine (run) connects,
// lists, publishes, then waits for the session to end or a list-changed
// notification; when the session ends it reconnects with backoff.
type server struct {
	b           *Bridge
	name        string
	cfg         ServerConfig
	source      string
	host        string // endpoint host of a URL server, "" for stdio
	httpClient  *http.Client
	prov        *provider
	failed      error                          // the host refused the server's provider at Start (under mu: refused)
	calls       inflight                       // the bridge's calls in flight, for sampling and log messages
	logs        serverLogs                     // its log messages' budget (serverlog.go)
	refusal     atomic.Pointer[refusedError]   // the last message refused before decoding (budget.go)
	stray       atomic.Pointer[strayLine]      // the last stdout line skipped as no JSON-RPC message (budget.go)
	strayWarnAt atomic.Int64                   // when a skipped line was last logged at warn (UnixNano)
	oauth       atomic.Pointer[oauthTransport] // of a URL server with oauth (set by transport)

	ctx    context.Context // cancelled by stop
	cancel context.CancelFunc

	ready     chan struct{} // closed after the first attempt
	readyOnce sync.Once
	refresh   chan struct{} // list-changed notifications, coalesced
	kick      chan struct{} // retry now instead of after the backoff
	attempted atomic.Int64  // when the last connection attempt began (UnixNano)
	// sentOn is the session the last call was sent on: one that ended
	// under a call is a restart (serve), whether the call or the run
	// loop notices first.
	sentOn atomic.Pointer[mcpsdk.ClientSession]

	mu      sync.Mutex
	sess    *mcpsdk.ClientSession
	lastErr error
	// restarting: the session dropped after it had been up, and the first
	// reconnect attempt has not failed yet; calls wait for it (restartWait)
	// instead of answering Unavailable. changed is closed (and replaced)
	// whenever sess or restarting changes.
	restarting bool
	changed    chan struct{}

	listMu sync.Mutex // serializes relists (run loop and Refresh)

	// Lifecycle, under mu: launched says run was started (done is closed
	// when it returns); stopped that stop was called, after which no
	// process is started; kill kills the current stdio server process with
	// its process group unless it has exited (see transport).
	launched bool
	stopped  bool
	kill     context.CancelFunc
	done     chan struct{}
	stopOnce sync.Once
}

func newServer(b *Bridge, name string, sc ServerConfig, hc *http.Client) *server {
	ctx, cancel := context.WithCancel(b.ctx)
	s := &server{b: b, name: name, cfg: sc, httpClient: hc, ctx: ctx, cancel: cancel,
		ready: make(chan struct{}), refresh: make(chan struct{}, 1), kick: make(chan struct{}, 1), done: make(chan struct{})}
	s.source = sc.Source()
	if sc.URL != "" {
		s.host = sc.endpointHost()
	}
	s.prov = &provider{srv: s}
	s.prov.table.Store(s.emptyTable())
	return s
}

// displayURL is a server's URL as logs, errors and the provider's
// description show it (callers see those): without a password or a query,
// where hosted MCP servers' URLs often carry an API key.
func displayURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.RawQuery != "" || u.ForceQuery {
		u.RawQuery, u.ForceQuery = "…", false
	}
	u.Fragment, u.RawFragment = "", ""
	return u.Redacted()
}

func (s *server) session() *mcpsdk.ClientSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess
}

// refused is the host's refusal of the server's provider at Start (the
// server is then never started), nil when it took it.
func (s *server) refused() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

func (s *server) lastError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

func (s *server) setSession(sess *mcpsdk.ClientSession, err error) {
	s.setState(sess, err, false)
}

// setState records the connection state and wakes calls waiting for a
// restart.
func (s *server) setState(sess *mcpsdk.ClientSession, err error, restarting bool) {
	s.mu.Lock()
	s.setStateLocked(sess, err, restarting)
	s.mu.Unlock()
}

func (s *server) setStateLocked(sess *mcpsdk.ClientSession, err error, restarting bool) {
	s.sess, s.lastErr, s.restarting = sess, err, restarting
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// dropped forgets sess when a call found its connection closed, before the
// run loop notices: later calls wait for the restart instead of being sent
// on the dead session.
// It also closes sess, so that the run loop reconnects even if the
// session lingers.
func (s *server) dropped(sess *mcpsdk.ClientSession) {
	if sess == nil {
		return
	}
	s.mu.Lock()
	if s.sess == sess {
		s.setStateLocked(nil, errors.New("the connection closed during a call"), s.ctx.Err() == nil)
	}
	s.mu.Unlock()
	_ = sess.Close()
}

// restartWait bounds how long a call waits for a dropped server to come
// back (see awaitRestart).
const restartWait = 5 * time.Second

// awaitRestart waits, when the server's session dropped after it had been
// up and the bridge is reconnecting for the first time, until the new
// session is up, that attempt fails, ctx ends or restartWait passes; it
// returns the session then (nil if none). A server that is down for good —
// its last reconnect attempt failed — is not waited for: its calls answer
// Unavailable at once.
func (s *server) awaitRestart(ctx context.Context) *mcpsdk.ClientSession {
	t := time.NewTimer(restartWait)
	defer t.Stop()
	for {
		s.mu.Lock()
		if s.sess != nil || !s.restarting || s.ctx.Err() != nil {
			sess := s.sess
			s.mu.Unlock()
			return sess
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil
		case <-s.ctx.Done():
			return nil
		case <-t.C:
			return nil
		}
	}
}

func (s *server) markReady() { s.readyOnce.Do(func() { close(s.ready) }) }

// stopWait bounds how long stop waits for the connection loop, and with it
// a stdio server's process, to end.
const stopWait = 5 * time.Second

// launch marks the connection loop started; false when the server was
// stopped already.
func (s *server) launch() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return false
	}
	s.launched = true
	return true
}

// isStopped reports whether stop was called.
func (s *server) isStopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// stop disconnects the server for good and waits (at most stopWait) for
// its connection loop to end. A connected stdio server gets its stdin
// closed, then SIGTERM, then SIGKILL (the go-sdk's shutdown, terminateWait
// apart); one that has not finished initialize — hung at start-up, say —
// is killed at once with its process group, so that it does not outlive
// the bridge.
func (s *server) stop() {
	s.stopOnce.Do(func() {
		s.mu.Lock()
		s.stopped = true
		sess, launched := s.sess, s.launched
		s.mu.Unlock()
		s.cancel() // no reconnect; a connection attempt in progress fails
		if sess != nil {
			_ = sess.Close() // graceful: the server sees EOF on stdin
		}
		s.killProcess()
		if !launched {
			return
		}
		t := time.NewTimer(stopWait)
		defer t.Stop()
		select {
		case <-s.done:
		case <-t.C:
			s.b.log.Warn("mcp server did not stop in time", "server", s.name, "waited", stopWait)
		}
	})
}

// killProcess kills the current stdio server process and its process
// group, unless it has exited already.
func (s *server) killProcess() {
	s.mu.Lock()
	kill := s.kill
	s.mu.Unlock()
	if kill != nil {
		kill()
	}
}

func (s *server) kickReconnect() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// kickFromCall asks for a retry now for a call that found the server not
// connected, unless the last attempt began less than restartUptime ago: a
// caller calling again and again (an agent retrying on Unavailable) had a
// server that fails at once started as fast as it failed, past the
// backoff that keeps a crashing server from being started in a loop.
func (s *server) kickFromCall() {
	if time.Since(time.Unix(0, s.attempted.Load())) >= restartUptime {
		s.kickReconnect()
	}
}

func (s *server) onListChanged() {
	select {
	case s.refresh <- struct{}{}:
	default:
	}
}

// restartUptime is how long a session must have been up for the bridge
// to restart (reconnect) it at once when it drops; one that drops sooner
// is retried with backoff.
const restartUptime = time.Second

// setLevelWait bounds the wait for a server's answer to logging/setLevel
// at connect.
const setLevelWait = 5 * time.Second

// relistEvery is the shortest time between two re-listings a server's
// list-changed notifications cause.
const relistEvery = 500 * time.Millisecond

// run is the server's connection loop; it returns when the bridge closes.
func (s *server) run() {
	defer close(s.done)
	defer s.markReady()
	backoff := DefaultReconnectMin
	for s.ctx.Err() == nil {
		began := time.Now()
		s.attempted.Store(began.UnixNano())
		connected, err := s.serve()
		// A server or proxy quoting the bridge's token (or a secret of
		// its env) in its refusal: the error goes into the log, Start's
		// error and Status, as a call's does not (redactToken).
		err = s.redactConnErr(err)
		// A session that was up and dropped (a stdio server that crashed,
		// say) is restarted at once, and calls meanwhile wait for it; a
		// failed attempt wakes them to answer Unavailable.
		restart := connected && s.ctx.Err() == nil
		s.setState(nil, err, restart)
		s.markReady()
		if s.ctx.Err() != nil {
			return
		}
		if !connected && errors.Is(err, errEnvUnset) {
			// Its token (or OAuth client secret) comes from a variable
			// the host was started without, which no retry can change:
			// it was retried forever, a warning each time.
			s.b.log.Warn("mcp server not started, and not retried until a refresh (aios/registry.refresh): restart the host with the variable set", "server", s.name, "err", err)
			select {
			case <-s.kick:
				backoff = DefaultReconnectMin
				continue
			case <-s.ctx.Done():
				return
			}
		}
		ran := time.Since(began)
		if restart && ran >= restartUptime {
			s.b.log.Warn("mcp server connection lost; restarting", "server", s.name, "err", err)
			backoff = DefaultReconnectMin
			continue
		}
		if ran > 10*backoff {
			backoff = DefaultReconnectMin // it ran a while: a fresh failure
		}
		if restart {
			// Up for less than restartUptime: a server that dies as soon
			// as it has started is restarted with backoff, not in a loop.
			s.b.log.Warn("mcp server connection lost soon after it started; restarting", "server", s.name, "in", backoff, "err", err)
		} else {
			s.b.log.Warn("mcp server unavailable; reconnecting", "server", s.name, "in", backoff, "err", err)
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-s.kick:
			t.Stop()
		case <-s.ctx.Done():
			t.Stop()
			return
		}
		backoff = min(backoff*2, s.cfg.ReconnectMax)
	}
}

// warnStartFailure logs what a stdio server that did not complete
// initialize said on stderr last, and its exit status when it has exited:
// the go-sdk's error says only EOF. It goes to the log, not into the error,
// which callers of the server's tools see.
func (s *server) warnStartFailure(tr mcpsdk.Transport, cmd *exec.Cmd) {
	if cmd == nil {
		return
	}
	lw, ok := cmd.Stderr.(*logWriter)
	if !ok {
		return
	}
	exit := "still running"
	if st, ok := tr.(*stdioTransport); ok {
		if ps := st.exit.get(); ps != nil {
			exit = ps.String()
		}
	}
	tail := lw.tail()
	if tail == "" {
		tail = "(nothing)"
	}
	s.b.log.Warn("mcp server did not complete initialize; its last stderr lines", "server", s.name, "exit", exit, "stderr", tail)
}

// serve connects, lists and publishes, then waits for the session to end.
// connected reports that the session was up (connected and listed).
func (s *server) serve() (connected bool, err error) {
	cctx, cancel := context.WithTimeout(s.ctx, s.cfg.ConnectTimeout)
	defer cancel()
	cctx = withTokenWait(cctx)
	tr, cmd, err := s.transport()
	if err != nil {
		return false, err
	}
	if cmd != nil {
		// Whatever the stdio server started and left behind when its
		// session ended goes with it. (cmd.Start ran in this goroutine,
		// inside Connect.)
		defer func() { _ = killProcessGroup(cmd.Process) }()
	}
	copts := &mcpsdk.ClientOptions{
		Capabilities:               &mcpsdk.ClientCapabilities{},
		ToolListChangedHandler:     func(context.Context, *mcpsdk.ToolListChangedRequest) { s.onListChanged() },
		ResourceListChangedHandler: func(context.Context, *mcpsdk.ResourceListChangedRequest) { s.onListChanged() },
		PromptListChangedHandler:   func(context.Context, *mcpsdk.PromptListChangedRequest) { s.onListChanged() },
	}
	if s.cfg.Sampling {
		copts.Capabilities.Sampling = &mcpsdk.SamplingCapabilities{}
		// The handler of requests with tools (none are offered: the
		// capability says so), which gets the messages as sent: the
		// go-sdk's conversion for CreateMessageHandler dereferenced a
		// null message, and that panic in its goroutine ended the host
		// (TestSamplingNullMessageKeepsHost).
		copts.CreateMessageWithToolsHandler = s.sampleHandler
	}
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "aios-host", Version: Version}, copts)
	// Start with initialize (no server/discover probe): MCP servers of
	// 2025-11-25 and earlier need not answer unknown requests.
	ctr := tr
	if _, ok := tr.(*stdioTransport); ok {
		// (Not a URL server's: the go-sdk's streamable connection has
		// methods of its own that the go-sdk looks for, which a wrapper
		// would hide.)
		// It logs the server's log messages as it reads them, before
		// the answer that follows them (the go-sdk's handlers run apart
		// from its reading, and the call had ended when they ran).
		ctr = &idTransport{base: tr, onLog: s.serverLog}
	} else {
		copts.LoggingMessageHandler = func(_ context.Context, req *mcpsdk.LoggingMessageRequest) {
			if b, err := json.Marshal(req.Params); err == nil {
				s.serverLog(b)
			}
		}
	}
	sess, err := client.Connect(cctx, ctr, &mcpsdk.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		if s.ctx.Err() == nil { // not the bridge's own stop, which killed it
			s.warnStartFailure(tr, cmd)
		}
		var ae *authError
		if errors.As(err, &ae) {
			err = ae // not the go-sdk's and net/http's wrapping, which quotes the URL whole
		}
		err = versionRefused(err)
		if waitedForToken(cctx) && s.ctx.Err() == nil {
			// The go-sdk says only "context deadline exceeded": initialize
			// was never sent, the bridge was waiting for a token.
			asked := ""
			if u := s.oauth.Load().askedURL(); u != "" {
				asked = " (asking " + u + ")"
			}
			err = fmt.Errorf("no answer within mcp.servers.%s.connect_timeout (%v): the bridge was still waiting for an OAuth token from the server's authorization server%s (mcp.servers.%s.oauth); initialize was not sent: %w",
				s.name, s.cfg.ConnectTimeout, asked, s.name, err)
		}
		return false, fmt.Errorf("connect to %s: %w", s.source, err)
	}
	if v := sess.InitializeResult().ProtocolVersion; v > ProtocolVersion {
		// The go-sdk takes any version it knows, and runs a newer one
		// (the 2026-07-28 draft) under its rules: tools/list answers
		// cached for the server's ttlMs, so a re-listing (a tool gone,
		// aios/registry.refresh) read the cache and the server was never
		// asked. The bridge runs only what it asks for or older.
		_ = sess.Close()
		return false, fmt.Errorf("connect to %s: the server answered initialize with protocol version %q, newer than the %s the bridge asked for; MCP servers answer the version asked for or an older one they support",
			s.source, v, ProtocolVersion)
	}
	s.setSession(sess, nil)
	if err := s.relist(cctx, sess); err != nil {
		_ = sess.Close()
		// The session served calls from here on; one that found it
		// closed (dropped) took it: the server went down under a call
		// (it crashed during one), which is a restart as after listing,
		// not a first connection that failed — whose calls meanwhile
		// answered Unavailable at once instead of waiting for it. So it
		// is when the call has not dropped it yet: its connection gone
		// under a call sent on it (TestServerDyingDuringRestartListNoticedFirst).
		return s.session() != sess || s.sentOn.Load() == sess && s.connectionGone(cctx, err), err
	}
	if ir := sess.InitializeResult(); ir != nil && ir.Capabilities != nil && ir.Capabilities.Logging != nil {
		// debug, what the TypeScript and Python SDKs' servers send
		// anyway: the go-sdk's send no log message before they are told
		// a level. The bridge passes on what the call's client or the
		// host log takes (serverLog), which the server cannot know. It
		// is answered before Start returns (at most setLevelWait): sent
		// from a goroutine, a call made at once could reach the server
		// first and its log messages be dropped.
		lctx, cancel := context.WithTimeout(cctx, setLevelWait)
		if err := sess.SetLoggingLevel(lctx, &mcpsdk.SetLoggingLevelParams{Level: "debug"}); err != nil && s.ctx.Err() == nil {
			s.b.log.Debug("mcp server refused logging/setLevel", "server", s.name, "err", err)
		}
		cancel()
	}
	s.markReady()
	s.b.log.Info("mcp server connected", "server", s.name, "source", s.source,
		"tools", len(s.prov.table.Load().reg.Tools))
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	// List-changed notifications re-list the server at most once per
	// relistEvery: one that says its list changed after every listing
	// would otherwise be re-listed (and republished) as fast as it answers.
	var last time.Time
	var later <-chan time.Time
	relist := func() {
		later, last = nil, time.Now()
		rctx, cancel := context.WithTimeout(s.ctx, s.cfg.ConnectTimeout)
		if err := s.relist(rctx, sess); err != nil && s.ctx.Err() == nil {
			s.b.log.Warn("mcp server re-list failed", "server", s.name, "err", err)
		}
		cancel()
	}
	for {
		select {
		case err := <-done:
			if err == nil {
				err = errors.New("the server closed the connection")
			}
			return true, err
		case <-s.refresh:
			if later != nil {
				continue // a re-list is due already
			}
			if d := time.Until(last.Add(relistEvery)); d > 0 {
				later = time.After(d)
				continue
			}
			relist()
		case <-later:
			relist()
		case <-s.ctx.Done():
			_ = sess.Close()
			<-done
			return true, s.ctx.Err()
		}
	}
}

// versionRefused says what the go-sdk's `unsupported protocol version:
// "…"` means: the server's initialize answer named a version the bridge
// does not speak, or none (a result without protocolVersion, or null),
// and which ones it speaks. Other errors are returned as they are.
func versionRefused(err error) error {
	v, ok := strings.CutPrefix(err.Error(), "unsupported protocol version: ")
	if !ok {
		return err
	}
	var speaks []string
	for _, sv := range mcpsdk.SupportedProtocolVersions() {
		if sv <= ProtocolVersion {
			speaks = append(speaks, sv)
		}
	}
	slices.Sort(speaks)
	said := "protocol version " + wire.CutText(v, 80, "…")
	if v == `""` {
		said = "no protocolVersion (a result without it, or null)"
	}
	return fmt.Errorf("the server answered initialize with %s; the bridge speaks %s: %w", said, strings.Join(speaks, ", "), err)
}

// relist lists the server's tools (and resources), converts them, skipping
// with a logged reason what cannot be registered, and publishes the
// provider when its tool set changed.
func (s *server) relist(ctx context.Context, sess *mcpsdk.ClientSession) error {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	t := s.emptyTable()
	if ir := sess.InitializeResult(); ir != nil && ir.ServerInfo != nil {
		if v, fs := screen.Text(ir.ServerInfo.Version, "", screen.Strip); len(fs) == 0 {
			t.reg.Provider.Version = v
		}
		if ir.ServerInfo.Title != "" {
			title, fs := screen.Text(ir.ServerInfo.Title, "/serverInfo/title", s.cfg.policy())
			if len(fs) > 0 {
				s.b.log.Warn("mcp server title screened: untrusted text with hidden characters or injection-like phrases",
					"server", s.name, "policy", string(s.cfg.policy()), "findings", screen.Summary(fs))
			}
			if s.cfg.policy() != screen.Refuse || len(fs) == 0 {
				t.reg.Provider.Description = "MCP server " + s.name + ": " + title
			}
		}
	}
	ir := sess.InitializeResult()
	toolsDeclared := ir != nil && ir.Capabilities != nil && ir.Capabilities.Tools != nil
	for tool, err := range listPages(ctx, "tools/list", func(ctx context.Context, cursor string) ([]*mcpsdk.Tool, string, error) {
		r, err := sess.ListTools(ctx, &mcpsdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, nil
	}) {
		var we *jsonrpc.Error
		if err != nil && !toolsDeclared && errors.As(err, &we) {
			// A server without the tools capability (resources only, say)
			// need not answer tools/list; it is still asked, since a
			// server that gains tools later says so by list_changed.
			s.b.log.Info("mcp server offers no tools", "server", s.name, "reason", err.Error())
			break
		}
		if errors.Is(err, errTooManyEntries) {
			s.b.log.Warn("mcp tools past the bound not imported", "server", s.name, "reason", err.Error())
			break
		}
		if err != nil {
			return err
		}
		def, err := importTool(s.name, tool, s.host, s.cfg.TrustHints)
		if err == nil {
			def, err = s.admit(def)
		}
		if err != nil {
			s.b.log.Warn("mcp tool skipped", "server", s.name, "reason", err)
			continue
		}
		def.CapabilityRequired = s.required(def.CapabilityRequired, tool.Name)
		if !t.add(def, target{tool: tool.Name, structured: def.Returns != nil}) {
			s.b.log.Warn("mcp tool skipped", "server", s.name, "reason", fmt.Sprintf("tool %q: duplicate name %s", tool.Name, def.Name))
		}
	}
	if s.cfg.importResources() && ir != nil && ir.Capabilities != nil && ir.Capabilities.Resources != nil {
		n := 0
		for res, err := range listPages(ctx, "resources/list", func(ctx context.Context, cursor string) ([]*mcpsdk.Resource, string, error) {
			r, err := sess.ListResources(ctx, &mcpsdk.ListResourcesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.Resources, r.NextCursor, nil
		}) {
			if err != nil {
				if s.connectionGone(ctx, err) {
					return fmt.Errorf("resources/list: %w", err)
				}
				s.b.log.Warn("mcp resources not imported", "server", s.name, "reason", err.Error())
				break
			}
			if n >= s.cfg.MaxResources {
				s.b.log.Info("mcp resources past max_resources not imported", "server", s.name, "max_resources", s.cfg.MaxResources)
				break
			}
			def, err := importResource(s.name, res, s.host)
			if err == nil {
				def, err = s.admit(def)
			}
			if err != nil {
				s.b.log.Warn("mcp resource skipped", "server", s.name, "reason", err)
				continue
			}
			def.CapabilityRequired = s.required(def.CapabilityRequired, s.localName(def.Name))
			if !t.add(def, target{uri: res.URI}) {
				s.b.log.Warn("mcp resource skipped", "server", s.name, "reason", fmt.Sprintf("resource %q: duplicate name %s", res.URI, def.Name))
				continue
			}
			n++
		}
	}
	if s.cfg.importTemplates() && ir != nil && ir.Capabilities != nil && ir.Capabilities.Resources != nil {
		if err := s.listTemplates(ctx, sess, t); err != nil {
			return err
		}
	}
	if s.cfg.importPrompts() && ir != nil && ir.Capabilities != nil && ir.Capabilities.Prompts != nil {
		if err := s.listPrompts(ctx, sess, t); err != nil {
			return err
		}
	}
	if n := len(t.reg.Tools); s.b.maxTools > 0 && n > s.b.maxTools {
		// The host would refuse the whole registration (and the bridge,
		// taking that for a failed connection, restart the server at
		// every listing): the first ones listed, tools before resources,
		// are imported.
		for _, d := range t.reg.Tools[s.b.maxTools:] {
			delete(t.targets, d.Name)
		}
		t.reg.Tools = t.reg.Tools[:s.b.maxTools]
		s.b.log.Warn("mcp tools past limits.max_tools_per_provider not imported", "server", s.name,
			"listed", n, "imported", s.b.maxTools, "max_tools_per_provider", s.b.maxTools)
	}
	old := s.prov.table.Load()
	if old.published && reflect.DeepEqual(old.reg, t.reg) {
		return nil
	}
	t.published = true
	s.prov.table.Store(t)
	if err := s.b.publish(ctx, s.prov, s.source); err != nil {
		// Keep serving the tools of the table the registry still holds.
		t.published = false
		s.prov.table.Store(old)
		return fmt.Errorf("publish %d tools: %w", len(t.reg.Tools), err)
	}
	return nil
}

// listTemplates adds the read tools of the server's resource templates
// to t (templates.go).
func (s *server) listTemplates(ctx context.Context, sess *mcpsdk.ClientSession, t *table) error {
	return importListed(ctx, s, t, "resource templates", "resources/templates/list",
		func(ctx context.Context, cursor string) ([]*mcpsdk.ResourceTemplate, string, error) {
			r, err := sess.ListResourceTemplates(ctx, &mcpsdk.ListResourceTemplatesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.ResourceTemplates, r.NextCursor, nil
		},
		func(rt *mcpsdk.ResourceTemplate) (abi.ToolDef, target, string, error) {
			def, tmpl, err := importTemplate(s.name, rt, s.host)
			what := "resource template"
			if rt != nil {
				what += " " + strconv.Quote(rt.URITemplate)
			}
			return def, target{tmpl: tmpl}, what, err
		})
}

// listPrompts adds the tools of the server's prompts to t (prompts.go).
func (s *server) listPrompts(ctx context.Context, sess *mcpsdk.ClientSession, t *table) error {
	return importListed(ctx, s, t, "prompts", "prompts/list",
		func(ctx context.Context, cursor string) ([]*mcpsdk.Prompt, string, error) {
			r, err := sess.ListPrompts(ctx, &mcpsdk.ListPromptsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.Prompts, r.NextCursor, nil
		},
		func(p *mcpsdk.Prompt) (abi.ToolDef, target, string, error) {
			def, err := importPrompt(s.name, p, s.host)
			what, tg := "prompt", target{}
			if p != nil {
				what, tg.prompt = what+" "+strconv.Quote(p.Name), p.Name
			}
			return def, tg, what, err
		})
}

// importListed adds to t a tool for each entry of one of the server's
// optional listings (resource templates, prompts: what), at most
// max_resources of them; convert makes an entry's tool, its target and
// how log lines name it. A server that does not answer the listing has
// none (logged). It fails only when the connection ends or the listing's
// time is up: the table is then not published, lest the tools vanish
// until the next listing.
func importListed[T any](ctx context.Context, s *server, t *table, what, method string,
	list func(context.Context, string) ([]*T, string, error), convert func(*T) (abi.ToolDef, target, string, error)) error {
	n := 0
	for e, err := range listPages(ctx, method, list) {
		if err != nil {
			if s.connectionGone(ctx, err) {
				return fmt.Errorf("%s: %w", method, err)
			}
			var we *jsonrpc.Error
			if errors.As(err, &we) && we.Code == jsonrpc.CodeMethodNotFound {
				s.b.log.Info("mcp server offers no "+what, "server", s.name, "reason", err.Error())
			} else {
				s.b.log.Warn("mcp "+what+" not imported", "server", s.name, "reason", err.Error())
			}
			return nil
		}
		if n >= s.cfg.MaxResources {
			s.b.log.Info("mcp "+what+" past max_resources not imported", "server", s.name, "max_resources", s.cfg.MaxResources)
			return nil
		}
		def, tg, name, err := convert(e)
		if err == nil {
			def, err = s.admit(def)
		}
		if err != nil {
			s.b.log.Warn("mcp "+strings.TrimSuffix(what, "s")+" skipped", "server", s.name, "reason", err)
			continue
		}
		def.CapabilityRequired = s.required(def.CapabilityRequired, s.localName(def.Name))
		if !t.add(def, tg) {
			s.b.log.Warn("mcp "+strings.TrimSuffix(what, "s")+" skipped", "server", s.name, "reason", fmt.Sprintf("%s: duplicate name %s", name, def.Name))
			continue
		}
		n++
	}
	return nil
}

// connectionGone says whether a listing failed because the session
// ended or the listing's (or the bridge's) time ran out, rather than
// because the server refused it.
func (s *server) connectionGone(ctx context.Context, err error) bool {
	return ctx.Err() != nil || s.ctx.Err() != nil || errors.Is(err, mcpsdk.ErrConnectionClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// Bounds of one paginated listing (tools/list, resources/list) of a
// server: a server whose nextCursor never ends would otherwise be listed
// until connect_timeout, its entries held (and each one skipped as a
// duplicate logged) all the while.
const (
	maxListEntries = 10000 // entries read; the rest are left out, logged
	maxListPages   = 1000
)

// errTooManyEntries ends a listing past maxListEntries: what was read is
// kept.
var errTooManyEntries = errors.New("too many entries")

// listPages yields the entries of a paginated listing, page by page
// (list fetches the page at a cursor), and fails with a clear error when
// the server repeats a cursor or sends more than maxListPages pages. It
// stops after maxListEntries entries, with an error naming the bound.
func listPages[T any](ctx context.Context, method string, list func(context.Context, string) ([]*T, string, error)) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		seen := map[string]bool{}
		cursor, n := "", 0
		for pages := 1; ; pages++ {
			items, next, err := list(ctx, cursor)
			if err != nil {
				yield(nil, fmt.Errorf("%s: %w", method, err))
				return
			}
			for _, it := range items {
				if n == maxListEntries {
					yield(nil, fmt.Errorf("%s: the server lists more than %d entries; the rest are left out: %w", method, maxListEntries, errTooManyEntries))
					return
				}
				n++
				if !yield(it, nil) {
					return
				}
			}
			switch {
			case next == "":
				return
			case seen[next]:
				yield(nil, fmt.Errorf("%s: the server sent nextCursor %.64q a second time (a listing without end)", method, next))
				return
			case pages == maxListPages:
				yield(nil, fmt.Errorf("%s: the server sent more than %d pages", method, maxListPages))
				return
			}
			seen[next] = true
			cursor = next
		}
	}
}

// required is caps with the capabilities capability_required gives the
// tool whose key is key (an MCP tool's name; for the tool of a resource,
// template or prompt its name after mcp-{server}-: localName) added: a
// glob "*" gates everything of the server, resources and prompts too.
func (s *server) required(caps []string, key string) []string {
	for _, c := range s.cfg.requiredFor(key) {
		if !slices.Contains(caps, c) {
			caps = append(caps, c)
		}
	}
	return caps
}

// localName is an imported tool's name after mcp-{server}- (read-notes,
// prompt-review).
func (s *server) localName(name string) string {
	return strings.TrimPrefix(name, "mcp-"+s.name+"-")
}

// admit checks an imported tool's definition before it is added to the
// server's table: its name must not fall in another server's namespace
// (Bridge.serverFor: servers "gh" and "gh-enterprise" both make
// mcp-gh-enterprise-x, from gh's tool enterprise-x and gh-enterprise's x;
// the name is the longer server's, as NotFoundHint takes it), and what a
// model reads of it is screened (screenDef).
func (s *server) admit(def abi.ToolDef) (abi.ToolDef, error) {
	if owner := s.b.serverFor(def.Name); owner != nil && owner != s {
		o := owner.name
		return def, fmt.Errorf("%s is in the namespace of MCP server %s (mcp.servers.%s: its tools are named mcp-%s-…), so it is left out: the name calls %s's tool, whichever server connects first; rename one of the two servers in mcp.servers to import it",
			def.Name, o, o, o, o)
	}
	return s.screenDef(def)
}

// screenDef screens what a model reads of an imported tool — its
// description and its schemas' descriptions and titles — under the
// server's policy ("tool poisoning": instructions hidden in a tool's
// description). Under refuse a tool with any finding is left out.
func (s *server) screenDef(def abi.ToolDef) (abi.ToolDef, error) {
	p := s.cfg.policy()
	out, fs := screen.Def(def, p)
	if len(fs) == 0 {
		return def, nil
	}
	if p == screen.Refuse {
		return def, fmt.Errorf("tool %s refused by screening (mcp.servers.%s.screen: refuse): %s", def.Name, s.name, screen.Summary(fs))
	}
	s.b.log.Warn("mcp tool definition screened: untrusted text with hidden characters or injection-like phrases",
		"server", s.name, "tool", def.Name, "policy", string(p), "findings", screen.Summary(fs))
	return out, nil
}

// emptyTable is the server's registration with no tools.
func (s *server) emptyTable() *table {
	// A URL (displayURL: redacted), not a command line: callers see the
	// description (aios/registry.search), and a command line holds host
	// paths and arguments (tokens), as the errors do not say either.
	where := s.source
	if s.cfg.URL == "" {
		where = "mcp.servers." + s.name
	}
	info := abi.ProviderInfo{
		ID:          ProviderID(s.name),
		Name:        "MCP server " + s.name,
		Runtime:     abi.RuntimeMCP,
		Description: "Tools of the MCP server " + s.name + " (" + where + "), imported by the MCP bridge",
	}
	if s.host != "" {
		info.Capabilities = []string{abi.CapNetwork + "(" + s.host + ")"}
	}
	if s.cfg.Sampling {
		info.Capabilities = append(info.Capabilities, abi.CapInference)
	}
	return &table{reg: &abi.ToolRegister{Format: abi.FormatVersion, Provider: info, Tools: []abi.ToolDef{}},
		targets: map[string]target{}}
}
