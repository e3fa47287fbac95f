package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"github.com/aios-host/aios-host/internal/buildinfo"
	"github.com/aios-host/aios-host/internal/fsperm"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/authlimit"
	"github.com/aios-host/aios-host/trust"
)

// Version is the host version written into its own Adapter Card and
// /health: the build's (buildinfo.Version), a strict SemVer version.
var Version = buildinfo.Version()

// Options configure a Server.
type Options struct {
	// Host serves the calls. It and Discovery stay the caller's: Close
	// does not close them; close them after it (Close cancels the calls
	// in flight, and Host.Close waits for them to end).
	Host *host.Host
	// Discovery may be nil (no folders, no remote adapters, no refresh).
	Discovery *discovery.Discovery
	// Config is the host configuration (its server section, agents and
	// default agent); Host.Config() when nil.
	Config *config.Config
	Logger *slog.Logger
	// Metrics may be shared with discovery's OnReload; NewMetrics when nil.
	Metrics *Metrics
	// Mount, when set, adds more endpoints to the HTTP mux (engineer M:
	// mcpserver mounts /mcp and /.well-known/oauth-protected-resource).
	// The patterns it registers are named, with the server's own, in the
	// answer to a path the server does not serve.
	Mount func(mux Mux)
	// OnRefresh, when set, also runs on aios/registry.refresh with scope
	// "all" or "remote" (engineer M: the MCP bridge re-lists its servers).
	OnRefresh func(ctx context.Context, scope string) error
}

// Server serves the JSON-RPC API and the HTTP endpoints.
type Server struct {
	h       *host.Host
	d       *discovery.Discovery
	hcfg    *config.Config
	cfg     Config
	log     *slog.Logger
	metrics *Metrics
	tokens  []tokenAgent
	uids    map[uint32]string
	signer  *trust.SigningKey
	mount   func(mux Mux)                                 // Options.Mount (MCP endpoints)
	refresh func(ctx context.Context, scope string) error // Options.OnRefresh
	// refreshes: one coalescer per aios/registry.refresh scope.
	refreshes map[string]*coalescer

	mu        sync.Mutex
	listeners []net.Listener
	https     []*http.Server
	conns     map[net.Conn]context.CancelCauseFunc // cancels the connection's calls (ErrShuttingDown at Close)
	// base is the context of every HTTP request the server's listeners
	// serve: Close cancels it, so calls in flight answer Cancelled and
	// event streams end before the listeners shut down.
	base     context.Context
	stopBase context.CancelCauseFunc
	socket   string
	// sockets are the socket files this host made, by path (watchSocket,
	// Close).
	sockets   map[string]fileID
	publicURL string
	closed    bool
	wg        sync.WaitGroup
	nextSub   int64
	// streams counts each agent's open GET /events streams.
	streams map[string]int
	// uidConns counts each socket peer uid's open connections.
	uidConns map[uint32]int
	// badTokens refuses an HTTP client address that presented too many
	// invalid bearer tokens (authenticateHint).
	badTokens *authlimit.Limiter
	// tokenReqs counts each bearer token's HTTP /rpc requests in flight
	// (by token name).
	tokenReqs map[string]int

	// The host card last signed (HostCard): its unsigned canonical form,
	// the key and the signed bytes. Anyone may GET the card, and signing
	// costs milliseconds with an RSA key: an unchanged card is served as
	// it was signed.
	cardMu     sync.Mutex
	cardCanon  []byte
	cardSigner *trust.SigningKey
	cardSigned []byte
}

type tokenAgent struct {
	token []byte
	agent string
	name  string // server.tokens[].name: the audit records' principal "token:NAME"
}

// New builds a server; call ListenUnix / ListenHTTP to serve.
func New(opts Options) (*Server, error) {
	if opts.Host == nil {
		return nil, errors.New("server: no host")
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
	m := opts.Metrics
	if m == nil {
		m = NewMetrics()
	}
	s := &Server{h: opts.Host, d: opts.Discovery, hcfg: hcfg, cfg: cfg, log: log, metrics: m,
		uids: map[uint32]string{}, conns: map[net.Conn]context.CancelCauseFunc{}, streams: map[string]int{}, uidConns: map[uint32]int{}, tokenReqs: map[string]int{}, mount: opts.Mount, refresh: opts.OnRefresh,
		badTokens: authlimit.New(0, 0)}
	s.base, s.stopBase = context.WithCancelCause(context.Background())
	s.refreshes = map[string]*coalescer{"all": {life: s.base}, "local": {life: s.base}, "remote": {life: s.base}}
	m.attach(s)
	if err := s.loadAuth(hcfg, cfg); err != nil {
		return nil, err
	}
	s.publicURL = cfg.PublicURL
	return s, nil
}

// SetSigningKey sets the key that signs the host's card (tests, CLI).
func (s *Server) SetSigningKey(k trust.SigningKey) { s.signer = &k }

// Metrics returns the server's metrics (for discovery's OnReload hook).
func (s *Server) Metrics() *Metrics { return s.metrics }

// Socket is the unix socket path the server listens on ("" when none).
func (s *Server) Socket() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.socket
}

// agentForToken maps a bearer token to its agent, in constant time per
// token, and says which configured token it is (its name).
func (s *Server) agentForToken(tok string) (agent, name string, ok bool) {
	for _, t := range s.tokens {
		if subtle.ConstantTimeCompare(t.token, []byte(tok)) == 1 {
			agent, name, ok = t.agent, t.name, true
		}
	}
	return agent, name, ok
}

// UnixSocketUnsupported says why this platform has no JSON-RPC unix
// socket (Windows: the peer's uid cannot be read, and callers are mapped
// to agents by uid); nil where ListenUnix can serve.
func UnixSocketUnsupported() error { return unixSocketUnsupported() }

// CheckSocket says whether ListenUnix(path) could listen, without
// listening or removing anything: nil when the path is free or holds a
// stale socket (its host is gone), else why not (another host listens
// there, something that is not a socket is there, the path is too long).
// `run` asks it before loading the plugins, so a second host on a socket
// in use fails at once rather than after every load.
func CheckSocket(path string) error {
	_, err := probeSocket(path)
	return err
}

// socketPathFits says why path cannot be a unix socket address: bind(2)
// says only EINVAL for a path that does not fit sun_path.
func socketPathFits(path string) error {
	if len(path) >= maxSocketPath {
		return fmt.Errorf("socket %s: the path is too long (%d bytes; a unix socket address holds %d, with its NUL): choose a shorter one", path, len(path), maxSocketPath)
	}
	return nil
}

// fileID identifies a file whatever its name (sockwatch.go).
type fileID struct{ dev, ino uint64 }

// takenError says a socket path holds what is not this host's to
// replace: something that is not a socket, or a live host's socket.
type takenError struct{ found, msg string }

func (e *takenError) Error() string { return e.msg }

// probeSocket checks the socket path: stale when a socket file is there
// that refuses connections (its host died); an error for a path too long
// for a socket address, a live socket, or anything but a socket there
// (not the host's to remove).
func probeSocket(path string) (stale bool, err error) {
	if err := unixSocketUnsupported(); err != nil {
		return false, err
	}
	if err := socketPathFits(path); err != nil {
		return false, err
	}
	st, err := os.Lstat(path)
	if errors.Is(err, syscall.ENOTDIR) {
		// A file where a folder on the way should be: listen's MkdirAll
		// fails, after every plugin has loaded.
		return false, fmt.Errorf("socket %s: %w", path, err)
	}
	if err != nil {
		return false, nil // nothing there (or a folder on the way missing: made at listen)
	}
	if st.Mode().Type() != os.ModeSocket {
		return false, &takenError{found: fsperm.Kind(st.Mode()), msg: fmt.Sprintf("socket %s: exists and is not a socket (%s): not replacing it (remove it, or choose another socket path)", path, fsperm.Kind(st.Mode()))}
	}
	c, err := net.DialTimeout("unix", path, 200*time.Millisecond)
	if err == nil {
		c.Close()
		return false, &takenError{found: "another host's live socket", msg: fmt.Sprintf("socket %s: another host is already listening there", path)}
	}
	if errors.Is(err, syscall.ENOENT) {
		return false, nil // removed since (its host closed): nothing there now
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return false, fmt.Errorf("socket %s: cannot tell whether another host listens there (%v): not replacing it", path, err)
	}
	return true, nil
}

// ListenUnix listens on the unix socket path (a stale socket file left by
// a dead host is replaced; a live one is an error). The socket is 0600,
// or 0666 when server.uids lists another user (socketMode).
func (s *Server) ListenUnix(path string) error {
	if s.h == nil {
		return errUnmade
	}
	if path == "" {
		path = s.cfg.Socket
	}
	ln, id, err := claimSocket(path, s.socketMode())
	if err != nil {
		return err
	}
	s.warnUnreachable(path)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		removeOwnSocket(path, id)
		return errors.New("server closed")
	}
	s.listeners = append(s.listeners, ln)
	if s.socket == "" {
		s.socket = path
	}
	if s.sockets == nil {
		s.sockets = map[string]fileID{}
	}
	s.sockets[path] = id
	s.wg.Add(2)
	s.mu.Unlock()
	go s.acceptUnix(ln)
	go s.watchSocket(path, ln, id)
	return nil
}

// socketMode is the socket file's mode: 0600 when only the host's own
// user is served, 0666 when server.uids lists another uid. A listed uid
// could not connect to a 0600 socket at all (EACCES before its uid is
// read); the uid, read from the connection (SO_PEERCRED), decides who is
// served, and any other uid gets one error line.
func (s *Server) socketMode() os.FileMode {
	own := uint32(os.Getuid())
	for uid := range s.uids {
		if uid != own {
			return 0o666
		}
	}
	return 0o600
}

// warnUnreachable says at start when server.uids lists another user but a
// folder on the socket's path does not let other users search it (the
// data folder is 0700): those uids cannot reach the socket.
func (s *Server) warnUnreachable(path string) {
	if s.socketMode() != 0o666 {
		return
	}
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil && st.Mode().Perm()&0o001 == 0 {
			s.log.Warn("server: server.uids lists other users, but they cannot reach the socket: a folder on its path does not let others search it; put server.socket in a folder they can reach (e.g. /run/aios-host, mode 0755)",
				"socket", path, "folder", d, "mode", fmt.Sprintf("%04o", st.Mode().Perm()))
			return
		}
		if d == filepath.Dir(d) {
			return
		}
	}
}

// ListenHTTP serves the HTTP endpoints on addr and returns the bound
// address (addr may use port 0).
func (s *Server) ListenHTTP(addr string) (net.Addr, error) {
	if s.h == nil {
		return nil, errUnmade
	}
	if addr == "" {
		addr = s.cfg.HTTP
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("http %s: %w", addr, err)
	}
	if err := s.serveHTTP(ln); err != nil {
		return nil, fmt.Errorf("http %s: %w", addr, err)
	}
	return ln.Addr(), nil
}

// ServeHTTPListener serves the HTTP endpoints on an open listener. After
// Close it closes ln and serves nothing, as ListenHTTP then fails.
// A nil ln is logged and serves nothing.
func (s *Server) ServeHTTPListener(ln net.Listener) {
	if ln == nil {
		s.log.Error("ServeHTTPListener: the listener is nil; nothing is served")
		return
	}
	_ = s.serveHTTP(ln)
}

func (s *Server) serveHTTP(ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       s.cfg.ReadTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return s.base },
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return errors.New("server closed")
	}
	s.https = append(s.https, srv)
	if s.publicURL == "" {
		s.publicURL = "http://" + ln.Addr().String()
	}
	s.wg.Add(1) // under mu: Close's Wait comes after it sets closed
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("http server", "err", err)
		}
	}()
	return nil
}

// PublicURL is the base URL written into the host card.
func (s *Server) PublicURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.publicURL
}

// errUnmade is what the methods of a zero Server (declared, not made with
// New) answer, as a zero host.Host's and mcpserver.Server's do.
var errUnmade = errors.New("server: this Server was not made with server.New")

// closeGrace is how long Close waits for a connection's calls to answer.
const closeGrace = 3 * time.Second

// Close stops listening, answers the calls in flight (Cancelled), closes
// connections and removes the socket file.
func (s *Server) Close() error {
	if s.h == nil {
		return nil // a zero Server (not made with New): nothing to close
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.metrics.detach()
	lns, srvs := s.listeners, s.https
	// Each connection stops reading and cancels its calls; it closes once
	// their responses (Cancelled) are written. One that does not finish
	// in closeGrace is closed.
	conns := make([]net.Conn, 0, len(s.conns))
	for c, cancel := range s.conns {
		cancel(host.ErrShuttingDown)
		_ = c.SetReadDeadline(time.Now())
		conns = append(conns, c)
	}
	// watchSocket makes no socket once closed is set (it checks under
	// mu), so these are all there will be.
	socks := maps.Clone(s.sockets)
	s.mu.Unlock()
	force := time.AfterFunc(closeGrace, func() {
		for _, c := range conns {
			c.Close()
		}
	})
	defer force.Stop()
	for _, ln := range lns {
		ln.Close()
	}
	s.stopBase(host.ErrShuttingDown) // HTTP calls in flight answer Cancelled; event streams end
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, srv := range srvs {
		_ = srv.Shutdown(ctx)
		_ = srv.Close()
	}
	s.wg.Wait()
	for path, id := range socks {
		removeOwnSocket(path, id) // not another host's, put there since
	}
	return nil
}

// CheckAuth reads and checks what New reads of the server section of hcfg
// (its bearer tokens, uids and signing key), without serving: `run` asks
// it before loading the plugins, so a token_env that is empty, a
// token_file or signing_key that is missing or unsafe, an agent that is
// not configured, fails at once, not after every plugin has loaded and
// been closed again (TestRunServerSecretsCheckedFirst).
func CheckAuth(hcfg *config.Config) error {
	cfg, err := LoadConfig(hcfg)
	if err != nil {
		return err
	}
	s := &Server{log: slog.New(slog.DiscardHandler), uids: map[uint32]string{}}
	return s.loadAuth(hcfg, cfg)
}

// loadAuth reads the bearer tokens, the uids and the signing key of cfg
// into s.
func (s *Server) loadAuth(hcfg *config.Config, cfg Config) error {
	base := ""
	if hcfg.File != "" {
		base = filepath.Dir(hcfg.File)
	}
	for i, t := range cfg.Tokens {
		if _, ok := hcfg.Agents[t.Agent]; !ok {
			return fmt.Errorf("server.tokens: agent %q is not in agents", t.Agent)
		}
		v, err := t.value(base)
		if err != nil {
			return fmt.Errorf("server.tokens: %w", err)
		}
		for j, o := range s.tokens {
			switch {
			case string(o.token) != v:
			case o.agent != t.Agent:
				// The last would win: a token meant for one agent would act as another.
				return fmt.Errorf("server.tokens: agents %s and %s have the same token; give each agent its own", o.agent, t.Agent)
			default:
				// The last would name every request: the audit log could
				// not tell the peers apart, the name of one never shown.
				return fmt.Errorf("server.tokens[%d] (%s) has the same token as server.tokens[%d] (%s), of the same agent %s: the audit records would name every request of either %s; give each peer its own token, or list it once", i, t.Name, j, o.name, t.Agent, t.Name)
			}
		}
		if len(v) < minTokenChars {
			// Taken (a test set-up, a loopback-only host), but said:
			// 10 tries a minute per address (badTokens), from many
			// addresses, still guess a short one.
			s.log.Warn(fmt.Sprintf("server.tokens[%d] is %d characters long: a short token can be guessed by trying; use %d or more random characters (e.g. openssl rand -hex 32)", i, len(v), minTokenChars),
				"agent", t.Agent, "name", t.Name)
		}
		s.tokens = append(s.tokens, tokenAgent{token: []byte(v), agent: t.Agent, name: t.Name})
	}
	for uid, agent := range cfg.UIDs {
		if _, ok := hcfg.Agents[agent]; !ok {
			return fmt.Errorf("server.uids: agent %q (uid %s) is not in agents", agent, uid)
		}
		n, _ := strconv.ParseUint(uid, 10, 32)
		s.uids[uint32(n)] = agent
	}
	if _, listed := s.uids[uint32(os.Getuid())]; !listed && hcfg.DefaultAgent != "" {
		s.uids[uint32(os.Getuid())] = hcfg.DefaultAgent
	}
	if cfg.SigningKey != "" {
		p := cfg.SigningKey
		if !filepath.IsAbs(p) && base != "" {
			p = filepath.Join(base, p)
		}
		data, err := fsperm.ReadRegular(p, maxKeyFileBytes)
		if err != nil {
			return fmt.Errorf("server.signing_key: %w", err)
		}
		// The card-signing key, as a token_file: another account that
		// could read it could sign cards as this host, one that could
		// write it could make the host sign with a key of its own. Off
		// Unix, where nothing can be checked, it is taken as it is (a
		// token has token_env instead; a key has no other way in).
		if fsperm.Checkable {
			if threat, err := secretFileSafe(p, "key"); err != nil {
				return fmt.Errorf("server.signing_key %s is not safe: %v: another account could %s and sign Adapter Cards as this host (chmod o-rwx,g-w, or chown it to this user; aios-host keygen writes it 0600)", p, err, threat)
			}
		}
		k, err := trust.ParsePrivateKeyPEM(data, cfg.SigningKID)
		if err != nil {
			return fmt.Errorf("server.signing_key %s: %w", p, err)
		}
		s.signer = &k
	}
	return nil
}
