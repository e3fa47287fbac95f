package discovery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/origin"
	"github.com/aios-host/aios-host/internal/redact"
	"github.com/aios-host/aios-host/server/jsonrpc"
	"github.com/aios-host/aios-host/trust"
)

// WellKnownPath is where a host or adapter serves its Adapter Card.
const WellKnownPath = "/.well-known/aios-adapter.json"

// RemoteConfig is one entry of discovery.remotes: a remote host or adapter.
type RemoteConfig struct {
	// URL is the base URL (http://host:port); the card is read from
	// URL + /.well-known/aios-adapter.json.
	URL string `yaml:"url"`
	// Token is the bearer token sent with tools/call; TokenEnv names an
	// environment variable holding it instead.
	Token    string `yaml:"token"`
	TokenEnv string `yaml:"token_env"`
	// AllowUnsigned accepts a card without signature (as Untrusted).
	// Default false: a remote card must be signed by a trusted key.
	AllowUnsigned bool `yaml:"allow_unsigned"`
	// Timeout bounds fetching the card (default 5s).
	Timeout time.Duration `yaml:"timeout"`
}

// TokenValue resolves Token / TokenEnv.
func (r RemoteConfig) TokenValue() string {
	if r.TokenEnv != "" {
		return os.Getenv(r.TokenEnv)
	}
	return r.Token
}

// RemoteCard is a fetched and checked remote Adapter Card.
type RemoteCard struct {
	Card     *Card
	Verified *trust.Verified // nil when unsigned (and allowed)
	Trust    abi.TrustLevel
	Endpoint string // the JSON-RPC endpoint tools/call goes to
	// Capped says why Trust is below the signer's level ("" when not).
	Capped string
}

// unboundCap is the most a signed remote card may get when it does not
// name the endpoint its calls go to: the signature vouches for the card,
// not for the host serving it, which anyone can make serve a copy.
const unboundCap = abi.Community

// FetchRemoteCard runs seed §3.2 steps 1–3: GET the card, verify its
// signature against keys, check the protocol version.
func FetchRemoteCard(ctx context.Context, rc RemoteConfig, keys trust.KeyResolver, hc *http.Client) (*RemoteCard, error) {
	base, err := url.Parse(strings.TrimRight(rc.URL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("remote %q: not an http(s) URL", rc.URL)
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	timeout := rc.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	if hc.Timeout > 0 && hc.Timeout < timeout {
		// The remote's own timeout is the bound (discovery's default
		// client cut every fetch at its 5 s: TestRemoteTimeoutAboveClientTimeout).
		c := *hc
		c.Timeout = 0
		hc = &c
	}
	// (Its own cause: a caller's deadline passing first, a refresh's
	// minute, is not this timeout.)
	errFetchTimeout := fmt.Errorf("%w", context.DeadlineExceeded)
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errFetchTimeout)
	defer cancel()
	cardURL := base.String() + WellKnownPath
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, err
	}
	// A remote that answers slowly, or drips its card, fails with its
	// context's "deadline exceeded": say what did not arrive in time and
	// the setting that bounds it.
	fetchErr := func(err error) error {
		if context.Cause(ctx) == errFetchTimeout && errors.Is(err, errFetchTimeout) {
			return fmt.Errorf("fetching %s: the card was not received within %s (discovery.remotes[].timeout): %w", cardURL, timeout, err)
		}
		return fmt.Errorf("fetching %s: %w", cardURL, err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fetchErr(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching %s: HTTP %s", cardURL, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxCardBytes+1))
	if err != nil {
		return nil, fetchErr(err)
	}
	if len(data) > MaxCardBytes {
		// (an endless body, a gzip bomb: its size is not known, only
		// that it passes the limit)
		return nil, fmt.Errorf("fetching %s: the card is larger than %d bytes, the limit; not read further", cardURL, MaxCardBytes)
	}
	card, err := ParseCard(data, cardURL)
	if err != nil {
		return nil, err
	}
	// A signed card is not bound to the URL it is fetched from: a card
	// that describes something local (code beside it, a unix socket) was
	// signed for that, and a remote serving a copy of it would be called
	// at <url>/rpc with the signer's trust.
	if card.Artifact != nil {
		return nil, fmt.Errorf("%s: refused: the card pins an artifact (%s): a local plugin's card, not a remote adapter's card", cardURL, card.Artifact.Path)
	}
	if e := card.Endpoints; e != nil && e.RPC != "" {
		if u, err := url.Parse(e.RPC); err == nil && u.Scheme == "unix" {
			return nil, fmt.Errorf("%s: refused: endpoints.rpc %q is a unix socket: a local adapter's card, not a remote adapter's card", cardURL, e.RPC)
		}
	}
	out := &RemoteCard{Card: card}
	v, err := trust.VerifyCard(ctx, data, keys)
	switch {
	case err == nil:
		out.Verified, out.Trust = v, v.Trust
	case errors.Is(err, trust.ErrUnsigned) && rc.AllowUnsigned:
		out.Trust = abi.Untrusted
	default:
		return nil, fmt.Errorf("%s: refused: %w", cardURL, err)
	}
	out.Endpoint = base.String() + "/rpc"
	bound := false
	if e := card.Endpoints; e != nil && e.RPC != "" {
		u, err := url.Parse(e.RPC)
		if err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			out.Endpoint, bound = e.RPC, true
		}
	} else if e != nil && e.HTTP != "" {
		// No rpc: its HTTP endpoint's /rpc, as for a plugin folder's
		// card (endpoints.http was ignored: TestUnboundRemoteCardCapped).
		u, err := url.Parse(e.HTTP)
		if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			out.Endpoint, bound = strings.TrimRight(e.HTTP, "/")+"/rpc", true
		}
	}
	// Calls of a card without its own endpoint go to whichever host
	// served it: its signature cannot vouch for that host.
	if out.Verified != nil && !bound && out.Trust > unboundCap {
		out.Capped = fmt.Sprintf("the card, signed by a %s key, names no http(s) endpoints.rpc (nor, without one, an endpoints.http), so its calls go to the host that served it (%s), which its signature does not vouch for: trust %s; sign the card with its endpoints.rpc for the signer's trust", out.Trust, out.Endpoint, unboundCap)
		out.Trust = unboundCap
	}
	return out, nil
}

// RemoteProvider serves a card's skills by calling tools/call on the
// adapter's JSON-RPC endpoint (http(s)://…/rpc or unix:///path.sock). The
// remote side checks the token's agent grants; the local host checks the
// caller against each skill's capability_required before the call gets here.
type RemoteProvider struct {
	reg      *abi.ToolRegister
	endpoint string
	token    string
	hc       *http.Client

	mu   sync.Mutex
	unix *jsonrpc.Client
	http *jsonrpc.Client

	// The card's endpoints.health, probed every HealthInterval (see
	// Health); "" when the card gives none that can be reached.
	healthURL  string
	health     atomic.Pointer[string] // nil: healthy or not probed yet; else why not
	stopHealth chan struct{}
	startOnce  sync.Once
	closeOnce  sync.Once
	// gate refuses calls while the card's requirements.software is not
	// installed (nil: the card names none, or the provider was made
	// outside discovery).
	gate *softwareGate
}

// HealthInterval is how often a remote adapter's endpoints.health is
// probed (a variable for tests).
var HealthInterval = 30 * time.Second

// Health reports whether the adapter's health endpoint answered its last
// probe with a 2xx status (true when it has none or was not probed yet),
// and why not.
func (p *RemoteProvider) Health() (bool, string) {
	if why := p.health.Load(); why != nil {
		return false, *why
	}
	return true, ""
}

// healthEndpoint resolves a card's endpoints.health: a URL, or a path on
// the adapter's http endpoint.
func healthEndpoint(card *Card, endpoint string) string {
	e := card.Endpoints
	if e == nil || e.Health == "" {
		return ""
	}
	if u, err := url.Parse(e.Health); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		return e.Health
	}
	if !strings.HasPrefix(e.Health, "/") {
		return ""
	}
	base := e.HTTP
	if base == "" {
		base = endpoint
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return u.Scheme + "://" + u.Host + e.Health
}

// probeHealth probes the health endpoint until Close.
func (p *RemoteProvider) probeHealth() {
	t := time.NewTicker(HealthInterval)
	defer t.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		why := ""
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.healthURL, nil)
		if err == nil {
			var resp *http.Response
			if resp, err = p.hc.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
				resp.Body.Close()
				if resp.StatusCode/100 != 2 {
					why = fmt.Sprintf("health endpoint %s answered %s", p.healthURL, resp.Status)
				}
			}
		}
		if err != nil {
			why = fmt.Sprintf("health endpoint %s: %v", p.healthURL, err)
		}
		cancel()
		if why == "" {
			p.health.Store(nil)
		} else {
			p.health.Store(&why)
		}
		select {
		case <-p.stopHealth:
			return
		case <-t.C:
		}
	}
}

// NewRemoteProvider builds the provider for card served at endpoint.
func NewRemoteProvider(card *Card, endpoint, token string, hc *http.Client) (*RemoteProvider, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("adapter %s: endpoint %q: %w", card.Adapter.ID, endpoint, err)
	}
	switch u.Scheme {
	case "http", "https", "unix":
	case "tcp":
		if u.Host == "" || u.Port() == "" {
			return nil, fmt.Errorf("adapter %s: endpoint %q: a tcp endpoint is tcp://HOST:PORT", card.Adapter.ID, endpoint)
		}
	default:
		return nil, fmt.Errorf("adapter %s: endpoint %q: only http(s)://, tcp:// and unix:// endpoints can be called", card.Adapter.ID, endpoint)
	}
	var caps []string
	if card.Requirements != nil {
		caps = card.Requirements.Capabilities
	}
	reg := &abi.ToolRegister{Format: abi.FormatVersion, Provider: abi.ProviderInfo{ID: card.Adapter.ID, Name: card.Adapter.Name,
		Version: card.Adapter.Version, Runtime: abi.RuntimeRemote, Description: card.Adapter.Description, Capabilities: caps},
		Tools: card.Tools()}
	if hc == nil {
		hc = &http.Client{}
	}
	hc = sameOriginRedirects(hc, card.Adapter.ID)
	p := &RemoteProvider{reg: reg, endpoint: endpoint, token: token, hc: hc, healthURL: healthEndpoint(card, endpoint)}
	if p.healthURL != "" {
		p.stopHealth = make(chan struct{})
	}
	return p, nil
}

// sameOriginRedirects is hc following redirects within the origin
// (scheme, host and port) of each request only: checkEndpoints vetted the
// hosts a card makes this host reach, and a redirect elsewhere would send
// a call's arguments — and, Go's client keeps it when only the port or
// scheme differs, the remote's token — to a host nobody vetted (a loopback
// service of this host, plain http). Another origin is refused, naming it,
// as the MCP bridge and the inference client refuse it.
func sameOriginRedirects(hc *http.Client, id string) *http.Client {
	own := *hc
	next := hc.CheckRedirect
	own.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if from := via[0].URL; !origin.Same(req.URL, from) {
			return fmt.Errorf("remote adapter %s redirected %s to %s://%s, another origin: refused (the host follows an adapter's redirects within the origin of its card's endpoints only; put the URL it redirects to in the card)",
				id, from.Redacted(), req.URL.Scheme, req.URL.Host)
		}
		// A 301, 302 or 303 to a POST is followed as a GET without the
		// body: the call would be lost, its answer whatever the page
		// there says.
		if prev := via[len(via)-1]; req.Method != prev.Method && req.Response != nil {
			return fmt.Errorf("remote adapter %s answered %s %s with HTTP %d, a redirect to %s that is followed as a %s without the call: refused (put the URL it redirects to in the card; a 307 or 308 redirect keeps the %s)",
				id, prev.Method, prev.URL.Redacted(), req.Response.StatusCode, req.URL.Redacted(), req.Method, prev.Method)
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &own
}

// HealthURL is the URL StartHealth probes ("" when the card names none).
func (p *RemoteProvider) HealthURL() string { return p.healthURL }

// StartHealth starts probing the health endpoint every HealthInterval,
// once: discovery calls it when the provider serves, after the endpoint
// checks (a refused card must not make the host send anything).
func (p *RemoteProvider) StartHealth() {
	if p.stopHealth == nil {
		return
	}
	p.startOnce.Do(func() {
		select {
		case <-p.stopHealth: // closed already
		default:
			go p.probeHealth()
		}
	})
}

// Describe implements abi.Provider.
func (p *RemoteProvider) Describe() *abi.ToolRegister { return p.reg }

// Endpoint is where calls go.
func (p *RemoteProvider) Endpoint() string { return p.endpoint }

func (p *RemoteProvider) client(ctx context.Context) (*jsonrpc.Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// unix:// and tcp:// speak newline-delimited JSON-RPC on one
	// connection, kept open between calls.
	network, addr, stream := "", "", false
	if a, ok := strings.CutPrefix(p.endpoint, "unix://"); ok {
		network, addr, stream = "unix", a, true
	} else if a, ok := strings.CutPrefix(p.endpoint, "tcp://"); ok {
		network, addr, stream = "tcp", strings.TrimRight(a, "/"), true
	}
	if stream {
		if p.unix == nil {
			var d net.Dialer
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			p.unix = jsonrpc.NewConnClient(conn)
		}
		return p.unix, nil
	}
	if p.http == nil {
		p.http = jsonrpc.NewHTTPClient(p.endpoint, p.token, p.hc)
	}
	return p.http, nil
}

func (p *RemoteProvider) drop(c *jsonrpc.Client) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.unix == c {
		_ = c.Close()
		p.unix = nil
	}
}

// Call implements abi.Provider. A remote (or a proxy before it) that
// quotes the host's bearer token in its answer — a 401 page, an error
// echoing the request — has it taken out of the call's error, which the
// calling agent and the audit log see.
func (p *RemoteProvider) Call(ctx context.Context, call *abi.ToolCall, env abi.Env) (any, error) {
	if call == nil {
		return nil, abi.NilCall(p)
	}
	if err := p.gate.check(); err != nil {
		return nil, err
	}
	v, err := p.call(ctx, call, env)
	if err != nil && p.token != "" {
		err = redact.Error(err, p.token, "[redacted: token of remote "+p.reg.Provider.ID+"]")
	}
	return v, err
}

// timeoutMS is the timeout_ms of a call with left (> 0) of its deadline:
// rounded up, so never 0.
func timeoutMS(left time.Duration) int64 {
	return int64((left + time.Millisecond - 1) / time.Millisecond)
}

func (p *RemoteProvider) call(ctx context.Context, call *abi.ToolCall, _ abi.Env) (any, error) {
	c, err := p.client(ctx)
	if err != nil {
		return nil, abi.Errorf(abi.Unavailable, "remote adapter %s at %s: calling %s: %v", p.reg.Provider.ID, p.endpoint, call.Tool, err)
	}
	params := jsonrpc.ToolsCallParams{Name: call.Tool, Arguments: abi.ForJSON(call.Params), Version: call.Version, ParentID: call.ID, Depth: call.Depth + 1}
	if !call.Deadline.IsZero() {
		// What is left of the deadline, rounded up: with less than a
		// millisecond left, timeout_ms 0 (omitted) would have the remote
		// host apply its own default deadline to a call given up on here.
		left := time.Until(call.Deadline)
		if left <= 0 {
			return nil, abi.Errorf(abi.Timeout, "remote adapter %s: the deadline of %s passed before it was sent", p.reg.Provider.ID, call.Tool)
		}
		params.TimeoutMS = timeoutMS(left)
	}
	var res struct {
		Value presentValue `json:"value"`
	}
	err = c.Call(ctx, "tools/call", params, &res)
	if errors.Is(err, jsonrpc.ErrNotSent) && ctx.Err() == nil {
		// A kept connection the remote closed meanwhile (its
		// server.idle_timeout: 5 minutes without a call): the call
		// did not reach it, and goes on a new connection, once.
		p.drop(c)
		if c, err = p.client(ctx); err != nil {
			return nil, abi.Errorf(abi.Unavailable, "remote adapter %s at %s: calling %s: %v", p.reg.Provider.ID, p.endpoint, call.Tool, err)
		}
		err = c.Call(ctx, "tools/call", params, &res)
	}
	if err != nil {
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			// The remote's message alone (`caller "peer" lacks
			// CallTool(x)`) named neither the host that refused nor
			// that "peer" is its agent for this host's token; an answer
			// the client refused (no result, too large) named no tool.
			te := rpcErr.ToolError()
			msg := te.Message
			if strings.TrimSpace(msg) == "" {
				// Named as the others are: it reached the caller as
				// "Internal:   " (TestRemoteErrorWithoutMessageNamed).
				msg = fmt.Sprintf("it answered JSON-RPC error %d with no message", rpcErr.Code)
			}
			te.Message = fmt.Sprintf("remote adapter %s at %s: calling %s: %s", p.reg.Provider.ID, p.endpoint, call.Tool, msg)
			return nil, te
		}
		if ctx.Err() != nil {
			// "context deadline exceeded" alone named neither the
			// remote nor the tool.
			te := abi.AsToolError(ctx.Err(), abi.Timeout)
			what := "its caller cancelled the call"
			if te.Code == abi.Timeout {
				what = "the call's deadline passed"
			}
			return nil, abi.Errorf(te.Code, "remote adapter %s at %s: %s before it answered %s (%v)", p.reg.Provider.ID, p.endpoint, what, call.Tool, ctx.Err())
		}
		p.drop(c)
		return nil, abi.Errorf(abi.Unavailable, "remote adapter %s at %s: calling %s: %v", p.reg.Provider.ID, p.endpoint, call.Tool, err)
	}
	if !res.Value.set {
		// null, {}, an MCP-shaped {"content": …}: taken as the tool
		// returning null, the call succeeded with nothing.
		return nil, abi.Errorf(abi.InvalidResult, "remote adapter %s at %s answered %s with a tools/call result that has no \"value\" member", p.reg.Provider.ID, p.endpoint, call.Tool)
	}
	v, err := abi.Normalize(res.Value.v)
	if err != nil {
		return nil, abi.Errorf(abi.ProviderError, "remote adapter %s at %s returned a bad value for %s: %v", p.reg.Provider.ID, p.endpoint, call.Tool, err)
	}
	return v, nil
}

// Close implements abi.Provider.
func (p *RemoteProvider) Close() error {
	p.closeOnce.Do(func() {
		if p.stopHealth != nil {
			close(p.stopHealth)
		}
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.unix != nil {
		_ = p.unix.Close()
		p.unix = nil
	}
	return nil
}

// presentValue is the value of a tools/call result, and whether the
// result had one (a JSON null counts: the tool returned null).
type presentValue struct {
	v   any
	set bool
}

func (p *presentValue) UnmarshalJSON(b []byte) error {
	p.set = true
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(&p.v)
}
