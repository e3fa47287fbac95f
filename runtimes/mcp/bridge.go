package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/buildinfo"
	"github.com/aios-host/aios-host/internal/linebudget"
	"github.com/aios-host/aios-host/internal/origin"
)

// Version is the client version the bridge announces to MCP servers.
var Version = buildinfo.Version()

// ProtocolVersion is the MCP version the bridge asks for in initialize
// (servers may answer with an older one they support). It is the newest
// version that starts with initialize: with a later one the go-sdk would
// first send the draft server/discover request, which a server that does
// not answer unknown requests leaves unanswered until connect_timeout.
const ProtocolVersion = "2025-11-25"

// terminateWait is how long closing a stdio server's session waits after
// closing its stdin before SIGTERM, and after SIGTERM before SIGKILL.
const terminateWait = time.Second

// Options configure a Bridge.
type Options struct {
	// Servers are the MCP servers to import, by name (see LoadConfig).
	Servers map[string]ServerConfig
	// Publish registers p in the host, or replaces the provider with p's id
	// (cmd wires it to host.ReplaceProvider with trust Untrusted). It is
	// called again with the same p whenever the server's tool list changes;
	// the host must not close p when p replaces itself. source is the
	// command line or URL of the server.
	Publish func(ctx context.Context, p abi.Provider, source string) error
	// Logger receives connection, listing and skipped-tool messages.
	Logger *slog.Logger
	// MaxTools is the most tools the host takes of one provider
	// (limits.max_tools_per_provider; 0: no bound): a server listing more
	// has the rest left out, logged, rather than its registration refused
	// at every listing.
	MaxTools int
	// HTTPClient is the base client for URL servers (http.DefaultClient's
	// transport when nil); the bearer token is added per server.
	HTTPClient *http.Client
}

// Bridge imports the tools of configured MCP servers. It is safe for
// concurrent use.
type Bridge struct {
	log      *slog.Logger
	publish  func(ctx context.Context, p abi.Provider, source string) error
	servers  []*server // by name
	maxTools int       // Options.MaxTools

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	start  sync.Once
}

// New checks opts and builds a bridge; Start connects.
func New(opts Options) (*Bridge, error) {
	if opts.Publish == nil {
		return nil, errors.New("mcp bridge: Options.Publish is nil")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Bridge{log: log, publish: opts.Publish, ctx: ctx, cancel: cancel, maxTools: opts.MaxTools}
	names := make([]string, 0, len(opts.Servers))
	for n := range opts.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		sc, err := opts.Servers[n].normalize(n, "")
		if err != nil {
			cancel()
			return nil, fmt.Errorf("mcp server %s: %w", n, err)
		}
		if sc.Disabled {
			log.Info("mcp server disabled by config", "server", n)
			continue
		}
		b.servers = append(b.servers, newServer(b, n, sc, opts.HTTPClient))
	}
	return b, nil
}

// Start connects to every server in the background and waits until each
// has published its tools or failed its first attempt (bounded by its
// connect_timeout + 1 s and by ctx). A server that failed is retried with
// backoff; its error is returned (joined) for the caller to log, and
// Start's error never means the bridge stopped. A server whose first
// attempt is still under way when the wait ends (one that never answers
// initialize, being shut down) is logged as a warning and returned as an
// error too. The connection starts with initialize (ProtocolVersion).
// After Close it publishes nothing and fails at once.
func (b *Bridge) Start(ctx context.Context) error {
	if b.ctx.Err() != nil {
		// Nothing would connect the servers: publishing them would
		// leave tools that never answer, and the wait below would last
		// each server's connect_timeout.
		return errors.New("mcp bridge: Start after Close: the bridge is closed")
	}
	b.start.Do(func() {
		for _, s := range b.servers {
			// Publish the server with no tools first, so that the host
			// owns its provider (and closes it) even when the server never
			// answers; a refusal (provider disabled) skips the server.
			t := s.prov.table.Load()
			t.published = true
			if err := b.publish(ctx, s.prov, s.source); err != nil {
				b.log.Warn("mcp server not imported", "server", s.name, "err", err)
				s.mu.Lock()
				s.failed = err
				s.mu.Unlock()
				s.markReady()
				continue
			}
			if !s.launch() {
				continue // closed meanwhile
			}
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				s.run()
			}()
		}
	})
	var errs []error
	for _, s := range b.servers {
		t := time.NewTimer(s.cfg.ConnectTimeout + time.Second)
		timedOut := false
		select {
		case <-s.ready:
		case <-t.C:
			timedOut = true
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		t.Stop()
		switch err := s.lastError(); {
		case s.refused() != nil:
			errs = append(errs, fmt.Errorf("mcp server %s: %w", s.name, s.refused()))
		case err != nil && s.session() == nil:
			errs = append(errs, fmt.Errorf("mcp server %s: %w", s.name, err))
		case timedOut:
			// The first attempt is still under way (a stdio server that
			// never answers initialize is being shut down, say): say so
			// rather than nothing.
			what := "initialize"
			if s.session() != nil {
				what = "listing its tools"
			}
			b.log.Warn("mcp server did not finish "+what+" within connect_timeout; still trying in the background",
				"server", s.name, "source", s.source, "connect_timeout", s.cfg.ConnectTimeout)
			errs = append(errs, fmt.Errorf("mcp server %s (%s): did not finish %s within connect_timeout (%v)%s; still trying in the background",
				s.name, s.source, what, s.cfg.ConnectTimeout, s.oauth.Load().tokenWait()))
		}
	}
	return errors.Join(errs...)
}

// Refresh re-lists every connected server now and republishes what
// changed; disconnected servers are retried at once instead of after their
// backoff. It is what `aios/registry.refresh` does for MCP servers. After
// Close it fails at once.
//
// The servers are re-listed at once, each within its connect_timeout (as
// the run loop's re-listings are): one that stopped answering tools/list
// held the refresh for the caller's whole deadline, and the servers after
// it were not re-listed.
func (b *Bridge) Refresh(ctx context.Context) error {
	if b.ctx.Err() != nil {
		return errors.New("mcp bridge: Refresh after Close: the bridge is closed")
	}
	errs := make([]error, len(b.servers))
	var wg sync.WaitGroup
	for i, s := range b.servers {
		sess := s.session()
		if sess == nil {
			s.kickReconnect()
			continue
		}
		wg.Go(func() {
			rctx, cancel := context.WithTimeout(ctx, s.cfg.ConnectTimeout)
			defer cancel()
			if err := s.relist(rctx, sess); err != nil {
				errs[i] = fmt.Errorf("mcp server %s: %w", s.name, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Status describes one server for `list`-style output and tests.
type Status struct {
	Name      string
	Source    string
	Connected bool
	Tools     int
	LastError string
}

// Status reports every server, by name.
func (b *Bridge) Status() []Status {
	out := make([]Status, 0, len(b.servers))
	for _, s := range b.servers {
		st := Status{Name: s.name, Source: s.source, Connected: s.session() != nil}
		if t := s.prov.table.Load(); t != nil {
			st.Tools = len(t.reg.Tools)
		}
		if err := s.lastError(); err != nil {
			st.LastError = err.Error()
		}
		out = append(out, st)
	}
	return out
}

// serverFor is the server whose namespace (mcp-{name}-…) holds tool, nil
// when none: of two whose names both prefix it (servers "a" and "a-b" both
// prefix mcp-a-b-c), the longer name's.
func (b *Bridge) serverFor(tool string) *server {
	var best *server
	for _, s := range b.servers {
		if strings.HasPrefix(tool, "mcp-"+s.name+"-") && (best == nil || len(s.name) > len(best.name)) {
			best = s
		}
	}
	return best
}

// NotFoundHint says why tool is not registered when its name is one this
// bridge would publish (mcp-{server}-…) for a server that is not
// connected, else "". Its reason (the server's last error) stays in the
// host log: it may quote the server's command line or address, which are
// the operator's, not the caller's.
func (b *Bridge) NotFoundHint(tool string) string {
	best := b.serverFor(tool)
	if best == nil || best.session() != nil {
		return ""
	}
	if best.refused() != nil {
		// Never started: nothing will connect it.
		return fmt.Sprintf("it would come from MCP server %s (mcp.servers.%s), whose provider %s the host refused at start (the host log says why; providers.%s.disabled, say): the server was not started and is not retried",
			best.name, best.name, ProviderID(best.name), ProviderID(best.name))
	}
	why := "it has not connected yet"
	if best.lastError() != nil {
		why = "it is not connected (the host log says why)"
	}
	return fmt.Sprintf("it would come from MCP server %s (mcp.servers.%s), and %s: its tools are registered once it connects (it is retried in the background, and at once by aios/registry.refresh)", best.name, best.name, why)
}

// Close disconnects every server and stops reconnecting: a connected stdio
// server gets its stdin closed, then SIGTERM, then SIGKILL; one still
// starting is killed with its process group at once. It waits (bounded)
// for the servers' processes to end. Closing a server's provider (the host
// does when it closes) does the same for that server. Tools already
// published answer Unavailable afterwards.
func (b *Bridge) Close() error {
	b.cancel()
	var wg sync.WaitGroup
	for _, s := range b.servers {
		wg.Go(s.stop)
	}
	wg.Wait()
	b.wg.Wait()
	return nil
}

// transport builds the MCP transport of a server, and for a stdio server
// the command it starts.
func (s *server) transport() (mcpsdk.Transport, *exec.Cmd, error) {
	if s.cfg.URL != "" {
		tok, err := s.cfg.token()
		if err != nil {
			return nil, nil, err
		}
		base := s.httpClient
		if base == nil {
			base = &http.Client{}
		}
		rt := base.Transport
		if rt == nil {
			rt = http.DefaultTransport
		}
		hc := *base
		// Every response body is checked (budget.go) before the go-sdk
		// reads it. The token goes to the server's origin only.
		home, _ := url.Parse(s.cfg.URL) // checked by normalize
		// A 401 or 403 to a POST is that request's error (auth.go).
		var creds http.RoundTripper = &bearerTransport{base: rt, token: tok, origin: home}
		if s.cfg.OAuth != nil {
			ot, err := newOAuthTransport(s.b.ctx, s.name, s.cfg.OAuth, home, rt)
			if err != nil {
				return nil, nil, err
			}
			s.oauth.Store(ot)
			creds = ot
		}
		hc.Transport = &budgetTransport{budget: s.budget(), base: &authTransport{server: s.name, token: tok != "",
			oauth: s.cfg.OAuth != nil, base: creds}}
		hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			// A redirect to another origin would reach a host the tools'
			// Network grant does not name (and the bridge's token was
			// meant for this one): refused.
			if !origin.Same(req.URL, home) {
				return fmt.Errorf("mcp server %s redirected the bridge to %s://%s, another origin than its url %s; the bridge follows redirects within the url's origin only (configure the url it redirects to)",
					s.name, req.URL.Scheme, req.URL.Host, displayURL(s.cfg.URL)) // not its key or password (TestCrossOriginRedirectHidesURLSecrets)
			}
			if len(via) > 0 && via[len(via)-1].Method == http.MethodPost && req.Method != http.MethodPost {
				// 301, 302 and 303 make the POST a GET without the
				// message: the server would answer that (400 or a stream),
				// and the bridge said only "Bad Request".
				status := 0
				if req.Response != nil {
					status = req.Response.StatusCode
				}
				return fmt.Errorf("mcp server %s answered the bridge's POST with a %d redirect to %s, which HTTP follows with a GET without the message (307 and 308 keep the POST); set its url (%s) to where it redirects",
					s.name, status, displayURL(req.URL.String()), s.source)
			}
			if base.CheckRedirect != nil {
				return base.CheckRedirect(req, via)
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		}
		return &mcpsdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: &hc, MaxRetries: 1,
			MaxEventSize: s.cfg.MaxMessageBytes}, nil, nil
	}
	if d := bridgeDepth(); d >= maxBridgeDepth {
		return nil, nil, fmt.Errorf("not started: this host was itself started by an MCP bridge %d levels deep (%s=%d); a server command that runs aios-host with a config bridging it again would start copies of itself without end (the limit is %d levels)",
			d, bridgeDepthEnv, d, maxBridgeDepth)
	}
	// The process runs in a process group of its own, killed (with
	// whatever the server started) when stop cancels pctx before the
	// process has exited. Only stop kills it this way: ending a session
	// otherwise closes stdin first (stdioTransport, as the go-sdk's
	// CommandTransport does; it also checks every message of the server
	// before the go-sdk decodes it, budget.go).
	pctx, kill := context.WithCancel(context.Background())
	cmd := exec.CommandContext(pctx, s.cfg.command(), s.cfg.Args...)
	cmd.Env = s.cfg.environ()
	cmd.Dir = s.cfg.Dir
	cmd.Stderr = &logWriter{log: s.b.log, server: s.name, redact: s.envSecrets()}
	cmd.WaitDelay = 2 * time.Second
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return killProcessGroup(cmd.Process) }
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		kill()
		return nil, nil, errors.New("the bridge is closing")
	}
	if s.kill != nil {
		s.kill() // the previous process, which has exited: frees its context
	}
	s.kill = kill
	return &stdioTransport{cmd: cmd, terminate: terminateWait, budget: s.budget(), sandbox: s.cfg.Sandbox}, cmd, nil
}

// budget is the check of the server's messages (budget.go); a refusal is
// logged and remembered for the calls it fails.
func (s *server) budget() *msgBudget {
	return &msgBudget{server: s.name, maxBytes: s.cfg.MaxMessageBytes, decode: s.cfg.DecodeBudget, refused: s.noteRefusal,
		skipped: func(reason string) { s.b.log.Warn("mcp tool skipped", "server", s.name, "reason", reason) },
		dropped: func(reason string) { s.b.log.Warn("mcp server message dropped", "server", s.name, "reason", reason) },
		stray:   s.noteStray}
}

// strayLine is a line of a stdio server's stdout skipped as no JSON-RPC
// message, and when.
type strayLine struct {
	reason string
	at     time.Time
}

// noteStray logs a skipped stdout line (at warn once a second, else at
// debug: a server printing its logs to stdout would flood the host's) and
// keeps it for a call that then times out (callError): its answer may
// have been the line.
func (s *server) noteStray(reason string) {
	now := time.Now()
	s.stray.Store(&strayLine{reason: reason, at: now})
	level := slog.LevelDebug
	if last := s.strayWarnAt.Load(); now.UnixNano()-last >= int64(time.Second) && s.strayWarnAt.CompareAndSwap(last, now.UnixNano()) {
		level = slog.LevelWarn
	}
	s.b.log.Log(context.Background(), level, "mcp server stdout line skipped", "server", s.name, "reason", reason)
}

// noteRefusal logs a message of the server that the bridge refused before
// decoding it, and keeps it for the calls in flight (refusalFor).
func (s *server) noteRefusal(e *refusedError) {
	s.b.log.Warn("mcp server message refused before decoding: past max_message_bytes or decode_budget; its connection or stream fails",
		"server", s.name, "source", s.source, "err", e.Error())
	s.refusal.Store(e)
}

// refusalFor returns the refusal that failed a call begun at since: the
// one err carries, or else the server's last one if it came after since
// (the go-sdk does not always pass a read error on: an SSE stream that
// breaks ends its call with "request terminated without response"). The
// bridge cannot tell which call a refused message answered, so every call
// in flight then fails with it.
func (s *server) refusalFor(err error, since time.Time) *refusedError {
	var e *refusedError
	if errors.As(err, &e) {
		return e
	}
	if e = s.refusal.Load(); e != nil && !e.at.Before(since) {
		return e
	}
	return nil
}

// bearerTransport adds the server's token to every request to the
// server's origin (the URL's scheme, host and port).
type bearerTransport struct {
	base   http.RoundTripper
	token  string
	origin *url.URL
}

func (t *bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.token == "" || !origin.Same(r.URL, t.origin) {
		return t.base.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.base.RoundTrip(r)
}

// logWriter turns a stdio server's stderr into debug log lines, and keeps
// the last few for the warning of a server that fails to start.
type logWriter struct {
	log    *slog.Logger
	server string
	mu     sync.Mutex
	buf    []byte
	last   []string // the last stderrTailLines lines, each cut at stderrTailBytes
	// budget lets stderrLinesPerSecond lines a second into the log, made
	// with the first line logged.
	budget *linebudget.Budget
	// redact takes the secrets of the server's env out of each line
	// (nil: none), as they are out of a failed call's error.
	redact *strings.Replacer
}

const (
	stderrTailLines = 5
	stderrTailBytes = 300
)

// A server's stderr lines reach the log cut at maxStderrLine bytes, at
// most stderrLinesPerSecond a second (the rest counted in a warning), as
// the guests of the other runtimes: a server printing in a loop, or a
// line of megabytes, flooded the log at --log-level debug.
const (
	maxStderrLine        = 4096
	stderrLinesPerSecond = 100
)

// flushSuppressed reports the lines suppressed so far.
func (w *logWriter) flushSuppressed() {
	w.mu.Lock()
	b := w.budget
	w.mu.Unlock()
	if b != nil {
		b.Flush()
	}
}

// tail returns the last lines the server wrote to stderr (with a last line
// not ended yet), joined by " | ".
func (w *logWriter) tail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	lines := w.last
	if len(w.buf) > 0 {
		lines = append(lines[:len(lines):len(lines)], cutLine(w.buf))
		if len(lines) > stderrTailLines {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, " | ")
}

func cutLine(b []byte) string {
	if len(b) > stderrTailBytes {
		b = b[:stderrTailBytes]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := indexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		// The CR of a CRLF line end is not the line's (TestStderrCRLFLines).
		w.emit(bytes.TrimSuffix(w.buf[:i], []byte("\r")))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 4096 {
		w.emit(w.buf)
		w.buf = w.buf[:0]
	}
	return len(p), nil
}

func (w *logWriter) emit(line []byte) {
	if len(line) == 0 {
		return
	}
	if w.redact != nil {
		line = []byte(w.redact.Replace(string(line)))
	}
	w.last = append(w.last, cutLine(line))
	if len(w.last) > stderrTailLines {
		w.last = w.last[len(w.last)-stderrTailLines:]
	}
	// Lines the log level filters out are not counted against the budget.
	if !w.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	if w.budget == nil {
		log, server := w.log, w.server
		w.budget = linebudget.New(stderrLinesPerSecond, func(n int) {
			log.Warn("mcp server stderr lines suppressed", "server", server, "lines", n,
				"limit", fmt.Sprintf("%d lines a second per server", stderrLinesPerSecond))
		})
	}
	if !w.budget.Allow() {
		return
	}
	if len(line) > maxStderrLine {
		n := maxStderrLine
		for n > 0 && !utf8.RuneStart(line[n]) {
			n-- // not in the middle of a character
		}
		w.log.Debug("mcp server stderr", "server", w.server, "line", strings.ToValidUTF8(string(line[:n]), "\uFFFD"), "truncated_bytes", len(line)-n)
		return
	}
	w.log.Debug("mcp server stderr", "server", w.server, "line", string(line))
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
