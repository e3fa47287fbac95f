package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/buildinfo"
	"github.com/aios-host/aios-host/internal/origin"
	"github.com/aios-host/aios-host/internal/wire"
	"github.com/aios-host/aios-host/registry"
)

// Version is the server version announced to MCP clients when
// Options.Version is empty.
var Version = buildinfo.Version()

// MetaError is the _meta key of a failed call's result holding the
// ToolError ({code, message, data}), for clients that want the code.
const MetaError = "org.aios/error"

// MetaDepth is the _meta key of a tools/call request that gives the
// call's nesting at the host that forwards it (a whole number ≥ 0), as
// JSON-RPC's tools/call depth does: an aios host's MCP bridge sends its
// call's depth + 1, so two hosts serving tools through each other stop at
// limits.max_call_depth instead of calling each other until the deadline.
const MetaDepth = "org.aios/depth"

// MetaParentID is the _meta key of a tools/call request that gives the
// client's own id of the call it makes it for, as JSON-RPC's tools/call
// parent_id does: an aios host's MCP bridge sends its call's id, which the
// audit log records as the call's parent, "client:<id>"
// (server.ClientParentPrefix), never as a call of this host.
const MetaParentID = "org.aios/parent_id"

// MetaTimeoutMS is the _meta key of a tools/call request that gives the
// milliseconds the call may take (a whole number above 0), as JSON-RPC's
// tools/call timeout_ms does: an aios host's MCP bridge sends what is left
// of its call's deadline. The host caps it at limits.max_deadline.
const MetaTimeoutMS = "org.aios/timeout_ms"

// MetaDeprecation is the _meta key of a successful call's result that
// holds the deprecation (since, message, replacement) of the tool version
// that served it.
const MetaDeprecation = "org.aios/deprecation"

// Options configure a Server.
type Options struct {
	// Host serves the calls. It stays the caller's: Close does not close
	// it; close it after Close.
	Host *host.Host
	// Config is the host configuration (Host.Config() when nil).
	Config *config.Config
	Logger *slog.Logger
	// Resource is the URI of /mcp used when mcp.http.resource is unset;
	// cmd passes the HTTP server's public URL + "/mcp". It is the default
	// token audience.
	Resource string
	// HTTPClient fetches the issuer's JWKS (a 5 s timeout client when nil).
	HTTPClient *http.Client
	// Version is announced to clients as serverInfo.version (Version
	// when empty); cmd passes the build's, as `aios-host version` prints.
	Version string
}

// Server serves the host's exportable tools over MCP. One Server serves
// any number of stdio and HTTP sessions. It is safe for concurrent use.
type Server struct {
	h        *host.Host
	cfg      Config
	log      *slog.Logger
	mcp      *mcpsdk.Server
	verifier *verifier

	resMu    sync.Mutex
	resource string // URI of /mcp; see SetResource

	maxParams int // limits.max_params_bytes

	// writeTimeout bounds each write to a POST's response (fixHTTP): a
	// client that reads nothing for that long loses the answer.
	writeTimeout time.Duration

	mu       sync.Mutex
	exported map[string]*registry.Entry
	// refused is, by name, the tools the last sync could not export
	// (toMCPTool or the go-sdk refused them): syncCalled does not sync
	// again for a call of one.
	refused map[string]*registry.Entry

	httpMu    sync.Mutex
	httpCalls map[httpCallKey]*httpCall // HTTP requests in flight (fixHTTP)

	sessMu    sync.Mutex
	sessUse   map[string]*sessionUse // HTTP sessions by id (sessions.go)
	sessSeq   uint64
	sessCalls map[string]map[uint64]context.CancelCauseFunc // tools/call handlers running, by HTTP session

	levelMu   sync.Mutex
	logLevels map[*mcpsdk.ServerSession]mcpsdk.LoggingLevel // logging/setLevel's, by session (calllog.go)

	getMu     sync.Mutex
	gets      map[string][]*getStream // GET requests the go-sdk serves, by session (getstreams.go)
	parked    map[string][]parkedGET  // older GET streams kept open, by session, oldest GET first (park)
	endedGETs []endedGET              // the last sessions whose served GET stream the go-sdk ended (endParked)
	// getArrivals numbers the GET requests as they come (serveGET).
	getArrivals atomic.Uint64

	unsub     func()
	done      chan struct{}
	closeOnce sync.Once

	// The tools/call handlers running: Close cancels them (stop) and waits
	// for them, so that the host, closed next, does not close its audit log
	// under a call (whose record would be dropped).
	callsMu sync.Mutex
	closing bool
	calls   sync.WaitGroup
	stop    context.Context
	stopAll context.CancelFunc
	// posts counts the POST requests of /mcp being served: a call's
	// handler has returned when calls.Wait does, but the go-sdk writes its
	// answer on the POST's response after that. Close waits for them
	// (at most postsGrace), so that a server closed next does not end the
	// request before the client has its answer.
	posts atomic.Int64
}

// postsGrace bounds how long Close waits for the POST requests of /mcp
// to end once the calls have returned.
const postsGrace = time.Second

// New builds the server, exports the current tools and follows the
// registry from then on.
func New(opts Options) (*Server, error) {
	if opts.Host == nil {
		return nil, errors.New("mcpserver: no host")
	}
	hcfg := opts.Config
	if hcfg == nil {
		hcfg = opts.Host.Config()
	}
	cfg, err := LoadConfig(hcfg)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{h: opts.Host, cfg: cfg, log: log, exported: map[string]*registry.Entry{}, httpCalls: map[httpCallKey]*httpCall{}, sessUse: map[string]*sessionUse{},
		sessCalls: map[string]map[uint64]context.CancelCauseFunc{},
		gets:      map[string][]*getStream{}, parked: map[string][]parkedGET{},
		done: make(chan struct{}), maxParams: hcfg.Limits.MaxParamsBytes, writeTimeout: DefaultWriteTimeout}
	s.stop, s.stopAll = context.WithCancel(context.Background())
	if s.maxParams <= 0 {
		s.maxParams = config.DefaultMaxParamsBytes
	}
	s.resource = cfg.HTTP.Resource
	if s.resource == "" {
		s.resource = opts.Resource
	}
	if cfg.HTTP.Issuer != "" {
		s.verifier = newVerifier(cfg.HTTP, s.currentResource, opts.HTTPClient)
		if u, err := url.Parse(cfg.HTTP.JWKSURL); err == nil && u.Scheme == "http" && !origin.LoopbackHost(u.Host) {
			// Taken (a key server on a private network, such as a
			// container's, is a real set-up), but said: the keys decide
			// which tokens are taken.
			log.Warn("mcp.http.jwks_url is plain http to another machine: whoever is on the network path could swap the keys and mint tokens of any scope; use https unless that network is yours alone",
				"jwks_url", cfg.HTTP.JWKSURL)
		}
	}
	version := opts.Version
	if version == "" {
		version = Version
	}
	s.mcp = mcpsdk.NewServer(&mcpsdk.Implementation{Name: "aios-host", Title: "aios-host tools", Version: version},
		&mcpsdk.ServerOptions{
			Capabilities: s.capabilities(),
			Instructions: "Tools of an aios-host: each call is checked against this client's agent grants, validated against the tool's schema, rate limited and audited.",
		})
	s.mcp.AddReceivingMiddleware(needProtocolVersion, s.undeclared, s.checkLogLevel, explainCursor, s.syncCalled)
	if s.resourcesOn() {
		s.mcp.AddReceivingMiddleware(s.resourceMiddleware)
	}
	if s.cfg.ToolsList == "callable" {
		s.mcp.AddReceivingMiddleware(s.toolsListMiddleware)
	}
	events, unsub := opts.Host.Registry().Subscribe(64)
	s.unsub = unsub
	s.sync()
	go func() {
		defer close(s.done)
		for range events {
			if s.stop.Err() == nil {
				s.sync()
			}
		}
	}()
	return s, nil
}

// MCP returns the go-sdk server (to run it on another transport).
func (s *Server) MCP() *mcpsdk.Server { return s.mcp }

// Run serves one session on t (e.g. &mcp.StdioTransport{}) until the client
// disconnects or ctx is done. Calls run as the stdio agent (mcp.agent).
//
// When ctx ends (aios-host mcp on SIGINT/SIGTERM) the calls in flight are
// cancelled: the go-sdk closes the session only once its requests have
// finished, and gives them contexts that ctx's end does not reach. On a
// stdio transport (Stdio) their answers ("the host is shutting down") are
// written before the session ends, waited for at most postsGrace (a client
// that stopped reading gets none): the go-sdk, told of ctx's end, closed
// the session first and dropped them.
//
// Run after Close, with a nil t, or of a zero Server (not made with New)
// returns an error at once.
func (s *Server) Run(ctx context.Context, t mcpsdk.Transport) error {
	if s.mcp == nil {
		return errors.New("mcpserver: this Server was not made with mcpserver.New")
	}
	if t == nil {
		return errors.New("mcpserver: Run needs a transport (t is nil)")
	}
	s.callsMu.Lock()
	closing := s.closing
	s.callsMu.Unlock()
	if closing {
		return errors.New("mcpserver: Run after Close: the MCP server is closed")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	runCtx, endRun := context.WithCancel(context.WithoutCancel(ctx))
	defer endRun()
	if st, ok := t.(*stdioTransport); ok {
		defer context.AfterFunc(ctx, func() {
			// The calls end now (runCtxKey); the session, once their
			// answers are out.
			st.st.waitAnswered(postsGrace, nil)
			endRun()
		})()
	} else {
		defer context.AfterFunc(ctx, endRun)()
	}
	err := s.mcp.Run(context.WithValue(runCtx, runCtxKey{}, ctx), t)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// runCtxKey carries Run's ctx into the request contexts (the go-sdk keeps
// the values of the context a session was connected with).
type runCtxKey struct{}

// AnonymousAgent is mcp.http.anonymous_agent: the agent of requests to
// /mcp without a token ("" when they are refused).
func (s *Server) AnonymousAgent() string { return s.cfg.HTTP.AnonymousAgent }

// VerifiesTokens says whether /mcp can take a bearer token: only with
// mcp.http.issuer (and its keys) configured. Without it, and without
// an AnonymousAgent, /mcp refuses every request.
func (s *Server) VerifiesTokens() bool { return s.verifier != nil }

// Tools returns the names of the exported tools, sorted.
func (s *Server) Tools() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.exported))
	for n := range s.exported {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Hidden returns the exported tools agent may not call, each with why
// ("echo: caller … lacks ReadSpace(docs), which tool echo requires"),
// sorted: with mcp.tools_list callable (the default) its tools/list leaves
// them out. Nil with tools_list all.
func (s *Server) Hidden(agent string) []string {
	if s.cfg.ToolsList != "callable" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for n, e := range s.exported {
		if err := s.h.MayCall(agent, e); err != nil {
			out = append(out, n+": "+abi.AsToolError(err, abi.CapabilityDenied).Message)
		}
	}
	sort.Strings(out)
	return out
}

// StdioAgent is the agent of stdio clients (mcp.agent).
func (s *Server) StdioAgent() string { return s.cfg.Agent }

// Close stops following the registry, cancels the tool calls in flight
// and waits for them to return; later calls are refused. It then ends every
// session (a streamable-HTTP session would otherwise keep its state and a
// goroutine until mcp.http.session_timeout; Run returns), waiting at most a
// second: one whose client stopped reading ends when its write fails.
func (s *Server) Close() error {
	if s.mcp == nil {
		return nil // a zero Server (not made with New): nothing to close
	}
	s.closeOnce.Do(func() {
		// The calls are cancelled first: the registry follower may have
		// many changes queued (a folder reloading), each a list_changed to
		// every session, and calls waiting behind them ran on (a 3 s call
		// finished as if no Close, TestChaosEverythingAtOnce in a loaded
		// CI); it skips what is queued once stopped.
		s.callsMu.Lock()
		s.closing = true
		s.callsMu.Unlock()
		s.stopAll()
		s.unsub()
		<-s.done
		s.calls.Wait()
		for end := time.Now().Add(postsGrace); s.posts.Load() > 0 && time.Now().Before(end); {
			time.Sleep(5 * time.Millisecond)
		}
		// A session's Close waits for its handlers, and one writing to a
		// client that stopped reading waits for writeTimeout: each ends
		// on its own goroutine, waited for at most postsGrace. Only the
		// streamable-HTTP sessions (those with an id) are ended here: their
		// answers were written before their POSTs ended (waited for above),
		// but a stdio or in-memory session's answer is written after the
		// handler returns, and the go-sdk drops every write once Close has
		// begun, so closing one here could lose the answer of a call just
		// cancelled; they end with their transport.
		var wg sync.WaitGroup
		for ss := range s.mcp.Sessions() {
			if ss.ID() != "" {
				wg.Go(func() { _ = ss.Close() })
			}
		}
		ended := make(chan struct{})
		go func() { wg.Wait(); close(ended) }()
		t := time.NewTimer(postsGrace)
		defer t.Stop()
		select {
		case <-ended:
		case <-t.C:
		}
	})
	return nil
}

// begin registers a tools/call handler; false once Close has begun.
func (s *Server) begin() bool {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	if s.closing {
		return false
	}
	s.calls.Add(1)
	return true
}

// Handler serves /mcp (streamable HTTP behind the Origin and bearer-token
// checks) and the protected resource metadata at
// /.well-known/oauth-protected-resource and
// /.well-known/oauth-protected-resource/mcp.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	s.Mount(mux)
	return mux
}

// Mount adds the handlers of Handler to mux (an *http.ServeMux, or the
// server package's: server.Options.Mount).
func (s *Server) Mount(mux interface {
	Handle(pattern string, handler http.Handler)
}) {
	sh := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return s.mcp },
		&mcpsdk.StreamableHTTPOptions{SessionTimeout: s.cfg.HTTP.SessionTimeout, Logger: s.log})
	counted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			s.posts.Add(1)
			defer s.posts.Add(-1)
		}
		// After Close (counted first, so that Close's wait sees it) no
		// session starts: one would live until its session_timeout.
		s.callsMu.Lock()
		closing := s.closing
		s.callsMu.Unlock()
		if closing {
			http.Error(w, "the MCP server is closed", http.StatusServiceUnavailable)
			return
		}
		sh.ServeHTTP(w, r)
	})
	mux.Handle(Path, s.checkOrigin(requireToken(s.verifier, s.metadataURL, s.cfg.HTTP.AnonymousAgent, s.fixHTTP(counted))))
	meta := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		md := &oauthex.ProtectedResourceMetadata{
			Resource:               s.resourceFor(r),
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "aios-host MCP tools",
		}
		if s.cfg.HTTP.Issuer != "" {
			md.AuthorizationServers = []string{s.cfg.HTTP.Issuer}
		}
		if sc := scopeList(s.cfg.HTTP.Scopes); sc != "" {
			for _, m := range s.cfg.HTTP.Scopes {
				md.ScopesSupported = append(md.ScopesSupported, m.Scope)
			}
		}
		auth.ProtectedResourceMetadataHandler(md).ServeHTTP(w, r)
	})
	mux.Handle(MetadataPath, meta)
	mux.Handle(MetadataPath+Path, meta)
}

// SetResource sets the URI of /mcp (the default token audience) when
// mcp.http.resource does not: cmd calls it with the HTTP server's public URL
// + "/mcp" once it listens.
func (s *Server) SetResource(uri string) {
	if s.cfg.HTTP.Resource != "" {
		return
	}
	s.resMu.Lock()
	s.resource = uri
	s.resMu.Unlock()
	s.warnWildcardAudience(uri)
}

// warnWildcardAudience warns when /mcp verifies tokens (mcp.http.issuer)
// against the resource URI derived from the listen address (neither
// mcp.http.resource nor mcp.http.audience set, nor server.public_url) and
// it names an unspecified address (0.0.0.0, [::]): no authorization server
// issues a token with that aud, every token is refused, and an MCP client
// refuses the metadata naming it (RFC 9728 §3.3).
func (s *Server) warnWildcardAudience(resource string) {
	if s.cfg.HTTP.Issuer == "" || len(s.cfg.HTTP.Audience) > 0 {
		return
	}
	u, err := url.Parse(resource)
	if err != nil {
		return
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsUnspecified() {
		return
	}
	s.log.Warn("/mcp takes tokens for the resource "+resource+", which names the unspecified listen address (0.0.0.0 or [::]), not one a client connects to: no token carries it as aud, and MCP clients refuse its metadata",
		"resource", resource, "hint", "set server.public_url to the URL clients use (the resource is it + /mcp), or mcp.http.resource")
}

func (s *Server) currentResource() string {
	s.resMu.Lock()
	defer s.resMu.Unlock()
	return s.resource
}

// resourceFor is the resource URI: the configured one, else derived from
// the request (for discovery documents only; tokens are checked against
// the configured audience).
func (s *Server) resourceFor(r *http.Request) string {
	if r := s.currentResource(); r != "" {
		return r
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + Path
}

// metadataURL is the RFC 9728 metadata URL of the resource: the well-known
// prefix inserted between its host and path.
func (s *Server) metadataURL(r *http.Request) string {
	u, err := url.Parse(s.resourceFor(r))
	if err != nil {
		return MetadataPath
	}
	return u.Scheme + "://" + u.Host + MetadataPath + u.Path
}

// exportable says whether an entry is listed over MCP.
func (s *Server) exportable(e *registry.Entry) bool {
	if e.Def.MCPExportable {
		return true
	}
	for _, p := range s.cfg.Export {
		if abi.Glob(p, e.Def.Name) {
			return true
		}
	}
	return false
}

// sync brings the MCP tool list in line with the registry: the default
// version of every exportable tool. The go-sdk notifies connected clients
// (notifications/tools/list_changed) of each change.
func (s *Server) sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	reg := s.h.Registry()
	want := map[string]*registry.Entry{}
	for _, e := range reg.Tools() {
		if _, seen := want[e.Def.Name]; seen {
			continue
		}
		def, err := reg.Resolve(e.Def.Name, "")
		if err != nil || !s.exportable(def) {
			want[e.Def.Name] = nil
			continue
		}
		want[e.Def.Name] = def
	}
	s.refused = map[string]*registry.Entry{}
	var gone []string
	for name := range s.exported {
		if want[name] == nil {
			gone = append(gone, name)
			delete(s.exported, name)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
	for name, e := range want {
		if e == nil || s.exported[name] == e {
			continue
		}
		tool, structured, err := toMCPTool(e)
		if err == nil {
			err = addTool(s.mcp, tool, s.handler(name, e.Version.String(), structured, e.Provider.Info.Runtime == abi.RuntimeMCP))
		}
		if err != nil {
			s.log.Warn("tool not exported over MCP", "tool", name, "reason", err)
			s.refused[name] = e
			if _, was := s.exported[name]; was {
				s.mcp.RemoveTools(name)
				delete(s.exported, name)
			}
			continue
		}
		s.exported[name] = e
	}
}

// syncCalled brings the MCP tool list in line with the registry before a
// tools/call of an exportable tool that the list does not hold yet (or
// holds at another version): the list follows the registry's events on
// another goroutine, and a call made just after a provider was added was
// answered "unknown tool" for a tool the host had. A name the registry
// does not resolve, or resolves to a tool that is not exported, costs one
// lookup. A call of a tool the host has but does not export is answered
// `unknown tool "NAME"` saying so and how to export it: the go-sdk's
// words alone read as a name nothing holds, of a tool `aios-host list`
// shows.
func (s *Server) syncCalled(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
	return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
		p, ok := req.GetParams().(*mcpsdk.CallToolParamsRaw)
		if !ok || p == nil || method != "tools/call" || p.Name == "" {
			return next(ctx, method, req)
		}
		def, rerr := s.h.Registry().Resolve(p.Name, "")
		if rerr == nil && s.exportable(def) {
			s.mu.Lock()
			stale := s.exported[p.Name] != def && s.refused[p.Name] != def
			s.mu.Unlock()
			if stale && s.stop.Err() == nil {
				s.sync()
			}
		}
		res, err := next(ctx, method, req)
		var we *jsonrpc.Error
		if err != nil && rerr == nil && !s.exportable(def) && errors.As(err, &we) && we.Code == jsonrpc.CodeInvalidParams && we.Message == fmt.Sprintf("unknown tool %q", p.Name) {
			return nil, &jsonrpc.Error{Code: we.Code, Data: we.Data, Message: fmt.Sprintf(
				"unknown tool %s: the host has this tool, but it is not exported over MCP (its definition does not set mcp_exportable, and no mcp.export pattern matches its name); add it to mcp.export in the host's config to serve it (README \"MCP (both ways)\")", quoteCut(p.Name))}
		}
		return res, err
	}
}

// addTool is srv.AddTool, which panics on a schema it refuses (an
// x-mcp-header annotation on a property that is not a string, integer or
// boolean, or that is no HTTP header name): such a tool is not exported,
// with the go-sdk's reason, rather than crashing the host. The schema is
// its provider's to write. The go-sdk refuses before changing its list.
func addTool(srv *mcpsdk.Server, t *mcpsdk.Tool, h mcpsdk.ToolHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the MCP SDK refuses its definition: %v", r)
		}
	}()
	srv.AddTool(t, h)
	return nil
}

// toolsListMiddleware leaves out of each tools/list page the tools the
// client's agent may not call (mcp.tools_list: callable): a model shown a
// tool it cannot use calls it and gets CapabilityDenied. A page may come
// out shorter, or empty with a nextCursor; clients follow the cursor.
func (s *Server) toolsListMiddleware(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
	return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/list" || err != nil {
			return res, err
		}
		lr, ok := res.(*mcpsdk.ListToolsResult)
		if !ok {
			return res, nil
		}
		agent := s.agentOfExtra(req.GetExtra())
		out := &mcpsdk.ListToolsResult{Meta: lr.Meta, Cacheable: lr.Cacheable, NextCursor: lr.NextCursor, Tools: make([]*mcpsdk.Tool, 0, len(lr.Tools))}
		// The page depends on the agent: only its client may cache it
		// (it was sent with cacheScope "", a value MCP does not define).
		out.CacheScope = "private"
		s.mu.Lock()
		for _, t := range lr.Tools {
			if e := s.exported[t.Name]; e != nil && s.h.MayCall(agent, e) == nil {
				out.Tools = append(out.Tools, t)
			}
		}
		s.mu.Unlock()
		return out, nil
	}
}

// undeclared answers the methods of a capability the server did not
// declare — prompts, and resources with mcp.resources false — with -32601,
// as a method it does not serve (the go-sdk answers them: prompts/list an
// empty list, prompts/get "unknown prompt"). (The go-sdk writes its own
// message for -32601: "method not found: <method>".)
func (s *Server) undeclared(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
	return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
		capability, _, _ := strings.Cut(method, "/")
		if capability == "prompts" || (capability == "resources" && !s.resourcesOn()) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("method not found: %q", method)}
		}
		return next(ctx, method, req)
	}
}

// needProtocolVersion refuses an initialize without params.protocolVersion
// (-32602), which MCP requires: the go-sdk answered it as a request for its
// newest version, so a client that left it out was never told and got the
// rules of a version it may not speak. The session stays uninitialized.
func needProtocolVersion(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
	return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
		if p, ok := req.GetParams().(*mcpsdk.InitializeParams); ok && method == "initialize" && p != nil && p.ProtocolVersion == "" {
			var spoken []string
			for _, v := range mcpsdk.SupportedProtocolVersions() {
				if v < sessionlessVersion {
					spoken = append(spoken, v)
				}
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "initialize needs params.protocolVersion, the MCP version the client speaks; this server speaks " + strings.Join(spoken, ", ")}
		}
		return next(ctx, method, req)
	}
}

// mcpLogLevels are MCP's log levels (RFC 5424's), lowest first.
var mcpLogLevels = []mcpsdk.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// checkLogLevel refuses logging/setLevel with a level that is none of
// logLevels (-32602, as MCP asks): the go-sdk takes any string. So too a
// request whose _meta "io.modelcontextprotocol/logLevel" (2026-07-28's
// per-request level) is none of them: the go-sdk took any value for
// debug, so a client asking for "Error" got every debug line. A level
// set is noted for the session's forwarders (setSessionLogLevel).
func (s *Server) checkLogLevel(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
	return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
		if p, ok := req.GetParams().(*mcpsdk.SetLoggingLevelParams); ok && method == "logging/setLevel" && p != nil && !slices.Contains(mcpLogLevels, p.Level) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid log level %q: one of debug, info, notice, warning, error, critical, alert, emergency", p.Level)}
		}
		if p := req.GetParams(); p != nil && !reflect.ValueOf(p).IsNil() {
			if v, ok := p.GetMeta()[mcpsdk.MetaKeyLogLevel]; ok {
				if l, _ := v.(string); !slices.Contains(mcpLogLevels, mcpsdk.LoggingLevel(l)) {
					b, _ := json.Marshal(v)
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid log level %s in _meta %q: one of debug, info, notice, warning, error, critical, alert, emergency", b, mcpsdk.MetaKeyLogLevel)}
				}
			}
		}
		res, err := next(ctx, method, req)
		if p, ok := req.GetParams().(*mcpsdk.SetLoggingLevelParams); ok && method == "logging/setLevel" && p != nil && err == nil {
			if ss, ok := req.GetSession().(*mcpsdk.ServerSession); ok && ss != nil {
				s.setSessionLogLevel(ss, p.Level)
			}
		}
		return res, err
	}
}

// explainCursor says what is wrong when a list request's cursor is
// refused: the go-sdk answers a cursor it cannot decode with -32602
// "invalid params" alone. It cuts the name of an unknown tool, which the
// go-sdk quotes whole, and says when a tools/call names no tool.
func explainCursor(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
	return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
		res, err := next(ctx, method, req)
		var we *jsonrpc.Error
		if err == nil || !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
			return res, err
		}
		if p, ok := req.GetParams().(*mcpsdk.CallToolParamsRaw); ok && p != nil && p.Name == "" && we.Message == `unknown tool ""` {
			// No name given: `unknown tool ""` read as if a tool of
			// that name had gone.
			return nil, &jsonrpc.Error{Code: we.Code, Message: "tools/call needs params.name, the name of the tool to call (one of tools/list's)", Data: we.Data}
		}
		if p, ok := req.GetParams().(*mcpsdk.CallToolParamsRaw); ok && p != nil && len(p.Name) > 100 && we.Message == fmt.Sprintf("unknown tool %q", p.Name) {
			// The go-sdk quotes the name whole: a long one made an
			// answer longer than a client reads.
			return nil, &jsonrpc.Error{Code: we.Code, Message: "unknown tool " + quoteCut(p.Name), Data: we.Data}
		}
		var cursor string
		switch p := req.GetParams().(type) {
		case *mcpsdk.ListToolsParams:
			if p != nil {
				cursor = p.Cursor
			}
		case *mcpsdk.ListPromptsParams:
			if p != nil {
				cursor = p.Cursor
			}
		case *mcpsdk.ListResourcesParams:
			if p != nil {
				cursor = p.Cursor
			}
		case *mcpsdk.ListResourceTemplatesParams:
			if p != nil {
				cursor = p.Cursor
			}
		}
		if cursor == "" || we.Message != "invalid params" {
			return res, err
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid cursor %s: pass the nextCursor of an earlier %s page, or no cursor for the first page", quoteCut(cursor), method)}
	}
}

// agentOf is the agent a request acts as: the one its token maps to (HTTP)
// or the stdio agent.
func (s *Server) agentOf(req *mcpsdk.CallToolRequest) string {
	if req == nil {
		return s.cfg.Agent
	}
	return s.agentOfExtra(req.Extra)
}

// agentOfExtra is agentOf for any request's Extra.
func (s *Server) agentOfExtra(extra *mcpsdk.RequestExtra) string {
	if extra != nil && extra.TokenInfo != nil {
		if a, ok := extra.TokenInfo.Extra["agent"].(string); ok && a != "" {
			return a
		}
	}
	return s.cfg.Agent
}

// metaDepth is the depth a tools/call gives in _meta (MetaDepth), 0
// when it gives none; one that is not a whole number from 0 is
// InvalidParams saying so.
func metaDepth(meta mcpsdk.Meta) (int, *abi.ToolError) {
	v, ok := meta[MetaDepth]
	if !ok || v == nil {
		return 0, nil
	}
	if n, ok := metaWhole(v); ok && n >= 0 && n <= math.MaxInt32 {
		return int(n), nil
	}
	return 0, abi.Errorf(abi.InvalidParams, "_meta[%q] must be a whole number from 0 (the call's nesting at the host that forwards it), got %s", MetaDepth, metaText(v))
}

// metaParent is the parent a tools/call gives in _meta (MetaParentID) as
// the host records it, "client:<id>" (server.ClientParentPrefix), "" when
// it gives none. One that is not a string is InvalidParams saying so: a
// number (a client's request id) was dropped without a word, and the
// record had no parent, where JSON-RPC refuses a parent_id that is not a
// string.
func metaParent(meta mcpsdk.Meta) (string, *abi.ToolError) {
	v := meta[MetaParentID]
	if v == nil {
		return "", nil
	}
	pid, ok := v.(string)
	if !ok {
		return "", abi.Errorf(abi.InvalidParams, "_meta[%q] must be a string (the id of the client's call this one is made for), got %s", MetaParentID, metaText(v))
	}
	if pid == "" {
		return "", nil
	}
	return "client:" + pid, nil
}

// metaWhole is a _meta value that is a whole number (a JSON number
// without a fraction, from −2^63 to 2^63−1). The go-sdk reads
// 9223372036854775807 as the float 2^63: that is 2^63−1.
func metaWhole(v any) (int64, bool) {
	switch n := v.(type) {
	case float64:
		if n == math.Trunc(n) && n >= math.MinInt64 && n <= math.MaxInt64 {
			if n == math.MaxInt64 { // 2^63 as a float64
				return math.MaxInt64, true
			}
			return int64(n), true
		}
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return i, true
		}
	}
	return 0, false
}

// metaText is a _meta value as JSON, cut for an error message. A whole
// float from 2^53 up is written in exponent form (abi.ForJSON), as the
// go-sdk read it: 18446744073709551615 was quoted as 18446744073709552000,
// an integer the client did not send.
func metaText(v any) string {
	b, _ := json.Marshal(abi.ForJSON(v))
	return wire.CutText(string(b), 64, "")
}

// originOf is who, behind the agent, made a request: the principal the
// token check put in its TokenInfo ("oauth:SUBJECT", "anonymous") and the
// MCP session. The host writes both into the call's audit records.
func originOf(extra *mcpsdk.RequestExtra, ss *mcpsdk.ServerSession) host.Origin {
	var o host.Origin
	if extra != nil && extra.TokenInfo != nil {
		o.Principal, _ = extra.TokenInfo.Extra["principal"].(string)
		o.Remote, _ = extra.TokenInfo.Extra["remote"].(string)
	}
	if ss != nil {
		o.Session = ss.ID()
	}
	return o
}

// decodeBudgetFactor × limits.max_params_bytes bounds what a call's
// arguments may decode to (an estimate, internal/wire.CheckJSONCost): 128
// MiB by default; arguments of ordinary values under max_params_bytes cost
// at most about 16 times their bytes.
const decodeBudgetFactor = 32

// handler runs one tools/call through the host pipeline. Tool failures
// (including arguments that fail the schema: InvalidParams) are results
// with isError, as MCP asks, so the model sees them.
//
// A tool imported from another MCP server (bridged) answers with the MCP
// envelope {"content": [...], "structuredContent"?} (runtimes/mcp); its
// content blocks (text, images, resources) are passed on as they came
// rather than as the envelope's JSON in one text block.
//
// The call runs version, the one exported: sync follows the registry
// asynchronously, and the tool's default version at call time may be a
// newer one that is not exportable (or has another return schema than the
// outputSchema listed).
func (s *Server) handler(name, version string, structured, bridged bool) mcpsdk.ToolHandler {
	return func(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		// _meta timeout_ms counts from here: large arguments may wait for
		// limits.max_decode_bytes first (found by p163: the call ran
		// after the wait with its whole timeout again).
		received := time.Now()
		var params any = map[string]any{}
		if raw := req.Params.Arguments; len(raw) > 0 && string(raw) != "null" {
			// Bounded in what they decode to before they are decoded:
			// 7 MiB of [{},{},…] would take 500 MiB.
			budget := int64(s.maxParams) * decodeBudgetFactor
			// Large arguments also take their share of what all the large
			// messages being handled may decode to (limits.max_decode_bytes)
			// until the call is answered.
			release, over, err := s.h.ReserveJSON(ctx, raw, budget)
			if over {
				err = abi.Errorf(abi.TooLarge, "arguments of %s (%d bytes) would decode to more than %s of host memory (%d × limits.max_params_bytes; many small values such as empty objects)",
					name, len(raw), wire.SizeText(budget), decodeBudgetFactor)
			}
			if err != nil {
				// Recorded as any refused call, its arguments left out
				// undecoded (found by p173: it had no audit record).
				te := abi.AsToolError(err, abi.Unavailable)
				depth, _ := metaDepth(req.Params.Meta)
				parent, _ := metaParent(req.Params.Meta) // joins the record to the forwarding host's
				call := &abi.ToolCall{Caller: s.agentOf(req), Tool: name, Version: version, Depth: depth, ParentID: parent}
				_, _ = s.h.Refuse(host.WithOrigin(context.WithoutCancel(ctx), originOf(req.Extra, req.Session)), call, te)
				return errorResult(te), nil
			}
			defer release()
			if err := abi.UnmarshalJSONValue(raw, &params); err != nil {
				// The go-sdk decoded them: they are JSON the host cannot
				// take (nested too deep, a number out of range).
				return errorResult(abi.Errorf(abi.InvalidParams, "arguments of %s: %v", name, err)), nil
			}
		}
		if !s.begin() {
			return errorResult(abi.Errorf(abi.Unavailable, "the MCP server is shutting down")), nil
		}
		defer s.calls.Done()
		// The call's context is the request's, but with a cause of its
		// own: the go-sdk ends a request whose connection's input ended
		// with the read error as cause (io.EOF when a stdio client closes
		// its end, the MCP stdio shutdown), which the call's answer and
		// record would give as its whole reason ("EOF (…)").
		reqCtx := ctx
		var cancelCause context.CancelCauseFunc
		ctx, cancelCause = context.WithCancelCause(context.WithoutCancel(reqCtx))
		cancel := func() { cancelCause(nil) }
		defer cancel()
		defer context.AfterFunc(reqCtx, func() { cancelCause(connectionCause(context.Cause(reqCtx))) })()
		// Cancelled at Close or at the end of Run's ctx (SIGTERM): the
		// call's answer and record say the host is shutting down, not that
		// its client gave up.
		defer context.AfterFunc(s.stop, func() { cancelCause(host.ErrShuttingDown) })()
		if rc, ok := ctx.Value(runCtxKey{}).(context.Context); ok {
			defer context.AfterFunc(rc, func() { cancelCause(host.ErrShuttingDown) })()
		}
		ctx = host.WithOrigin(ctx, originOf(req.Extra, req.Session))
		if fw := newLogForwarder(reqCtx, req.Session, name, s.logLevelOf(req)); fw != nil {
			ctx = host.WithCallLog(ctx, fw.log)
			defer fw.close(s.stop.Done())
		}
		depth, terr := metaDepth(req.Params.Meta)
		if terr != nil {
			return errorResult(terr), nil
		}
		call := &abi.ToolCall{Caller: s.agentOf(req), Tool: name, Version: version, Params: params, Depth: depth}
		if ms, ok := metaWhole(req.Params.Meta[MetaTimeoutMS]); ok && ms > 0 {
			call.Deadline = received.Add(time.Duration(min(ms, int64(math.MaxInt64/time.Millisecond))) * time.Millisecond)
		} else if _, given := req.Params.Meta[MetaTimeoutMS]; given {
			return errorResult(abi.Errorf(abi.InvalidParams, "_meta[%q] must be a whole number of milliseconds from 1 to 9223372036854775807, got %s", MetaTimeoutMS, metaText(req.Params.Meta[MetaTimeoutMS]))), nil
		}
		if call.ParentID, terr = metaParent(req.Params.Meta); terr != nil {
			return errorResult(terr), nil
		}
		if req.Session != nil {
			done, n, ok := s.sessionCall(req.Session.ID(), cancelCause)
			if !ok {
				// Refused without running, audited and counted as any
				// refused call.
				refusal := abi.Errorf(abi.RateLimited, "call of %s: this session already runs %d calls, the limit (mcp.http.max_calls_per_session): wait for one to end, or open another session", name, n)
				refusal.Data = map[string]any{"limit": "mcp.http.max_calls_per_session"}
				_, err := s.h.Refuse(ctx, call, refusal)
				return errorResult(abi.AsToolError(err, abi.Internal)), nil
			}
			defer done()
		}
		v, info, err := s.h.CallWithInfo(ctx, call)
		if err != nil {
			te := abi.AsToolError(err, abi.Internal)
			r := errorResult(te)
			if n, over := resultLen(r, bridged); over {
				return errorResult(abi.Errorf(abi.TooLarge, "the %s error of %s comes to %d bytes in a tools/call answer: over the 16 MiB one MCP message may hold (what clients built on the go-sdk read, and this server's stdio takes); its message begins %q",
					te.Code, name, n, wire.CutText(te.Message, 512, ""))), nil
			}
			return r, nil
		}
		var r *mcpsdk.CallToolResult
		if bridged && !structured {
			r, _ = mcpEnvelope(v)
		}
		if r == nil {
			if r, err = successResult(v, structured); err != nil {
				return r, err
			}
		}
		if n, over := resultLen(r, bridged); over {
			return errorResult(abi.Errorf(abi.TooLarge, "result of %s comes to %d bytes in a tools/call answer: over the 16 MiB one MCP message may hold (what clients built on the go-sdk read, and this server's stdio takes); have the tool return less, or store it in a Space and return its ObjectId",
				name, n)), nil
		}
		if info.Deprecation != nil && !r.IsError {
			// Served, and the caller should move on: say since when,
			// why and what replaces it, as tools/call over JSON-RPC does.
			if r.Meta == nil {
				r.Meta = mcpsdk.Meta{}
			}
			r.Meta[MetaDeprecation] = info.Deprecation
		}
		return r, nil
	}
}

// resultLen is the length of r as JSON and whether it passes
// maxContentBytes: a result within limits.max_result_bytes can still (as
// text and structuredContent both, or escaped) pass what one MCP message
// holds. A host result's one text block is measured by itself when even
// escaped it fits.
func resultLen(r *mcpsdk.CallToolResult, bridged bool) (int, bool) {
	if !bridged && r.Meta == nil { // an error's _meta holds its message and data again
		n := 0
		for _, c := range r.Content {
			if t, ok := c.(*mcpsdk.TextContent); ok {
				n += len(t.Text)
			}
		}
		if r.StructuredContent != nil {
			n *= 2 // the text is its JSON
		}
		if 6*n <= maxContentBytes { // at most 6 bytes a byte (\u003c)
			return n, false
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return 0, false
	}
	return len(b), len(b) > maxContentBytes
}

// errClientClosed is the cause of the calls cancelled because the MCP
// client closed the connection (end of its input).
var errClientClosed = errors.New("the MCP client closed the connection")

// connectionCause says why the go-sdk ended a request's context: a client
// cancel (notifications/cancelled, context.Canceled) stays as it is; the
// end of the connection's input (io.EOF: a stdio client closed its end)
// is errClientClosed; any other read or write error names the connection.
func connectionCause(err error) error {
	switch {
	case err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return errClientClosed
	}
	return fmt.Errorf("the MCP connection ended: %w", err)
}

// mcpEnvelope turns a bridged tool's {"content": [...],
// "structuredContent"?} back into an MCP result; false when v is not
// exactly that shape or a block is not valid MCP content.
func mcpEnvelope(v any) (*mcpsdk.CallToolResult, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	content, ok := m["content"].([]any)
	if !ok || len(m) > 2 {
		return nil, false
	}
	if _, sc := m["structuredContent"]; len(m) == 2 && !sc {
		return nil, false
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, false
	}
	var r mcpsdk.CallToolResult
	if err := json.Unmarshal(b, &r); err != nil || len(r.Content) != len(content) {
		return nil, false
	}
	for _, c := range r.Content {
		// An empty text would be left out (the go-sdk omits it), and
		// MCP requires a resource's text or blob: an empty blob.
		if er, ok := c.(*mcpsdk.EmbeddedResource); ok && er.Resource != nil && er.Resource.Text == "" && er.Resource.Blob == nil {
			er.Resource.Blob = []byte{}
		}
	}
	if sc, ok := m["structuredContent"]; ok && sc != nil {
		// The go-sdk decoded it into float64s (9007199254740993 became
		// …992): the value the host holds goes, written as successResult
		// writes any (abi.ForJSON).
		r.StructuredContent = abi.ForJSON(sc)
	}
	return &r, true
}

func successResult(v any, structured bool) (*mcpsdk.CallToolResult, error) {
	// Whole floats from 2^53 up go in exponent form (abi.ForJSON): as
	// integer literals a client reading integers exactly takes them for
	// other numbers.
	v = abi.ForJSON(v)
	var text string
	if str, ok := v.(string); ok {
		text = str
	} else {
		b, err := json.Marshal(v)
		if err != nil {
			return errorResult(abi.Errorf(abi.InvalidResult, "result is not JSON: %v", err)), nil
		}
		text = string(b)
	}
	r := &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: text}}}
	if structured {
		r.StructuredContent = v
	}
	return r, nil
}

func errorResult(te *abi.ToolError) *mcpsdk.CallToolResult {
	e := map[string]any{"code": string(te.Code), "message": te.Message}
	if te.Data != nil {
		e["data"] = abi.ForJSON(te.Data) // as successResult writes a result
	}
	return &mcpsdk.CallToolResult{
		IsError: true,
		Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: string(te.Code) + ": " + te.Message}},
		Meta:    mcpsdk.Meta{MetaError: e},
	}
}

// typeList is a schema's type keyword given as a list, as strings (nil
// when it is no list).
func typeList(t any) []string {
	l, _ := t.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// toMCPTool describes e as an MCP tool. structured says whether the tool
// has an object return schema (outputSchema + structuredContent).
func toMCPTool(e *registry.Entry) (*mcpsdk.Tool, bool, error) {
	d := e.Def
	in := map[string]any{"type": "object"}
	if d.Parameters != nil {
		// A list holding "object" (["object", "null"]) takes the object an
		// MCP call's arguments always are: exported as "object".
		if t, ok := d.Parameters["type"]; ok && t != "object" && !slices.Contains(typeList(t), "object") {
			return nil, false, fmt.Errorf("params schema has type %v; MCP tools take an object", t)
		}
		in = make(map[string]any, len(d.Parameters)+1)
		for k, v := range d.Parameters {
			in[k] = v
		}
		in["type"] = "object"
	}
	t := &mcpsdk.Tool{Name: d.Name, Description: d.Description, InputSchema: in}
	structured := false
	if d.Returns != nil && d.Returns["type"] == "object" {
		t.OutputSchema = d.Returns
		structured = true
	}
	a := &mcpsdk.ToolAnnotations{IdempotentHint: d.Idempotent}
	openWorld, writes := false, false
	for _, c := range e.Caps {
		switch c.Kind {
		case abi.CapNetwork:
			openWorld = true
		case abi.CapWriteSpace, abi.CapCallTool:
			// It stores objects, or calls tools that may: clients run a
			// read-only tool without asking (it was announced so).
			writes = true
		}
	}
	a.OpenWorldHint = &openWorld
	switch d.PermissionLevel {
	case abi.PermissionPublic:
		if writes {
			f := false
			a.DestructiveHint = &f
		} else {
			a.ReadOnlyHint = true
		}
	case abi.PermissionLow, abi.PermissionMedium:
		f := false
		a.DestructiveHint = &f
	default: // high, critical
		tr := true
		a.DestructiveHint = &tr
	}
	t.Annotations = a
	t.Meta = mcpsdk.Meta{
		"org.aios/version":          e.Version.String(),
		"org.aios/provider":         e.Provider.Info.ID,
		"org.aios/runtime":          e.Provider.Info.Runtime,
		"org.aios/permission_level": d.PermissionLevel,
	}
	if d.Deprecated {
		t.Meta["org.aios/deprecated"] = true
	}
	return t, structured, nil
}
