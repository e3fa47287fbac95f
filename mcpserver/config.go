package mcpserver

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// DefaultAgent is the agent MCP clients act as unless the configuration
// names another. When the configuration defines no agent by this name,
// AddDefaultAgent adds it with DefaultAgentGrants.
const DefaultAgent = "mcp"

// DefaultAgentGrants returns the grants of the default "mcp" agent: it may
// call tools, and nothing else — tools that read or write spaces, use
// inference or the network on its behalf are refused. Define agents.mcp in
// the configuration to give MCP clients more.
func DefaultAgentGrants() []string { return []string{"CallTool(*)"} }

// Defaults of the HTTP side.
const (
	DefaultClockSkew      = 5 * time.Second
	DefaultSessionTimeout = 30 * time.Minute
	// DefaultWriteTimeout bounds each write of an answer to a POST on
	// /mcp: a client that reads nothing of it for that long loses it.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultStdinDrain is how long `aios-host mcp` goes on, once its
	// standard input has ended, answering the requests it read before
	// (mcp.stdin_drain).
	DefaultStdinDrain = 10 * time.Second
	// DefaultMaxSessions is how many HTTP sessions one user may hold.
	DefaultMaxSessions = 64
	// DefaultMaxCallsPerSession is how many calls one HTTP session runs at
	// once (a JSON-RPC socket connection's bound too).
	DefaultMaxCallsPerSession = 32
	DefaultJWKSRefresh        = 10 * time.Minute
	// DefaultJWKSMaxStale is how long the issuer's keys last fetched stay
	// trusted while refetching them fails (a key the issuer removed must
	// not verify for ever because its JWKS URL went down).
	DefaultJWKSMaxStale = 24 * time.Hour
	// Path is where the streamable-HTTP endpoint is mounted.
	Path = "/mcp"
	// MetadataPath is the RFC 9728 protected resource metadata document.
	MetadataPath = "/.well-known/oauth-protected-resource"
)

// Config is the `mcp:` section as the outbound server sees it.
//
//	mcp:
//	  agent: mcp                 # agent of stdio clients (aios-host mcp); default mcp
//	  export: ["pdf-*"]          # tools exported besides mcp_exportable ones (glob patterns)
//	  resources: true            # serve the Space objects the client's agent may read as resources
//	  tools_list: callable       # tools/list shows the tools the client's agent may call (or all exported)
//	  stdin_drain: 10s           # after stdin ends, answer the requests read before for at most this long
//	  http:                      # /mcp on `aios-host run --http`: an OAuth 2.1 resource server
//	    resource: https://box.example.com/mcp        # this resource's URI (default <public url>/mcp)
//	    audience: [https://box.example.com/mcp]      # accepted "aud" values (default [resource])
//	    issuer: https://auth.example.com             # the authorization server ("iss")
//	    jwks_url: https://auth.example.com/jwks.json # its signing keys (or jwks_file: path, from the config file's folder, writable by no other account)
//	    scopes:                                      # first listed scope a token holds picks its agent
//	      - {scope: "aios.admin", agent: cli}
//	      - {scope: "aios.tools", agent: mcp}
//	    agent: ""                # agent of a valid token with none of the scopes ("" refuses it: 403)
//	    anonymous_agent: ""      # serve requests without a token as this agent (development only)
//	    allowed_origins: []      # browser origins allowed besides this server's own (Origin header)
//	    clock_skew: 5s           # leeway for exp/nbf
//	    session_timeout: 30m     # idle MCP sessions are closed
//	    max_sessions: 64         # sessions per user (token agent + subject); one more closes their least recently used
//	    max_calls_per_session: 32  # tools/call one session runs at once; past it RateLimited
//	  servers: ...               # imported MCP servers (runtimes/mcp)
type Config struct {
	Agent  string   `yaml:"agent"`
	Export []string `yaml:"export"`
	// Resources serves Space objects as MCP resources (resources.go):
	// those of the Spaces the client's agent holds ReadSpace for. Default
	// true.
	Resources *bool `yaml:"resources"`
	// ToolsList says which exported tools a client's tools/list shows:
	// "callable" (default: those its agent may call, by grants, the
	// capabilities the tool requires and max_permission) or "all".
	ToolsList string `yaml:"tools_list"`
	// StdinDrain is how long a stdio session goes on once the client has
	// closed its standard input, answering the requests read before; the
	// calls still running then are cancelled. Default DefaultStdinDrain.
	StdinDrain time.Duration `yaml:"stdin_drain"`
	HTTP       HTTPConfig    `yaml:"http"`
	Servers    yaml.Node     `yaml:"servers"`
}

// HTTPConfig configures /mcp.
type HTTPConfig struct {
	Resource       string       `yaml:"resource"`
	Audience       []string     `yaml:"audience"`
	Issuer         string       `yaml:"issuer"`
	JWKSURL        string       `yaml:"jwks_url"`
	JWKSFile       string       `yaml:"jwks_file"`
	Scopes         []ScopeAgent `yaml:"scopes"`
	Agent          string       `yaml:"agent"`
	AnonymousAgent string       `yaml:"anonymous_agent"`
	// AllowedOrigins are the origins ("https://app.example.com") whose
	// pages may call /mcp besides this server's own: a request with an
	// Origin header of another is refused (403).
	AllowedOrigins []string      `yaml:"allowed_origins"`
	ClockSkew      time.Duration `yaml:"clock_skew"`
	SessionTimeout time.Duration `yaml:"session_timeout"`
	// MaxSessions bounds the sessions of one user (the agent and subject
	// of a token; the anonymous agent is one user): opening one more
	// closes the one they used least recently.
	MaxSessions int `yaml:"max_sessions"`
	// MaxCallsPerSession bounds the tools/call requests one session runs
	// at once: past it a call is a RateLimited result.
	MaxCallsPerSession int `yaml:"max_calls_per_session"`
}

// ScopeAgent maps an OAuth scope to an agent.
type ScopeAgent struct {
	Scope string `yaml:"scope"`
	Agent string `yaml:"agent"`
}

// LoadConfig decodes the mcp section of cfg (strict), fills defaults and
// checks that every agent it names exists (call AddDefaultAgent first).
func LoadConfig(cfg *config.Config) (Config, error) {
	var c Config
	if err := cfg.Decode(cfg.MCP, "mcp", &c); err != nil {
		return c, err
	}
	if c.Agent == "" {
		c.Agent = DefaultAgent
	}
	switch c.ToolsList {
	case "":
		c.ToolsList = "callable"
	case "callable", "all":
	default:
		return c, fmt.Errorf("%s: mcp.tools_list: %q: want callable or all", cfg.Where("mcp.tools_list"), c.ToolsList)
	}
	switch {
	case c.StdinDrain == 0:
		c.StdinDrain = DefaultStdinDrain
	case c.StdinDrain < 0:
		return c, fmt.Errorf("%s: mcp.stdin_drain: %s: must not be negative (0 for the default, %s)", cfg.Where("mcp.stdin_drain"), c.StdinDrain, DefaultStdinDrain)
	}
	h := &c.HTTP
	// jwks_file is a key file: "~/" is the home folder, and a relative
	// path is taken from the config file's folder, as for discovery.keys
	// and server.signing_key (README "Configuration").
	if h.JWKSFile != "" {
		h.JWKSFile = config.ExpandHome(h.JWKSFile)
		if msg := config.PathProblem(h.JWKSFile); msg != "" {
			// $HOME/jwks.json: the file expands no variables (TestSectionPathEnvVariableRefused).
			return c, fmt.Errorf("%s: mcp.http.jwks_file: %s", cfg.Where("mcp.http.jwks_file"), msg)
		}
		if !filepath.IsAbs(h.JWKSFile) && cfg.File != "" {
			h.JWKSFile = filepath.Join(filepath.Dir(cfg.File), h.JWKSFile)
		}
	}
	// Refused now when it is there and another account could write it
	// (and at every fetch after: jwksFileSafe).
	if h.JWKSFile != "" {
		if err := jwksFileSafe(h.JWKSFile); err != nil {
			return c, fmt.Errorf("%s: mcp.http.jwks_file: %v", cfg.Where("mcp.http.jwks_file"), err)
		}
	}
	if h.ClockSkew == 0 {
		h.ClockSkew = DefaultClockSkew
	}
	if h.SessionTimeout == 0 {
		h.SessionTimeout = DefaultSessionTimeout
	}
	if h.MaxSessions == 0 {
		h.MaxSessions = DefaultMaxSessions
	}
	if h.MaxCallsPerSession == 0 {
		h.MaxCallsPerSession = DefaultMaxCallsPerSession
	}
	bad := func(key, format string, a ...any) error {
		return fmt.Errorf("%s: mcp.%s: %s", cfg.Where("mcp."+key), key, fmt.Sprintf(format, a...))
	}
	for i, p := range c.Export {
		if p == "" {
			return c, bad(fmt.Sprintf("export[%d]", i), "empty pattern")
		}
	}
	agents := map[string]string{"agent": c.Agent, "http.agent": h.Agent, "http.anonymous_agent": h.AnonymousAgent}
	for i, s := range h.Scopes {
		if s.Scope == "" || s.Agent == "" {
			return c, bad(fmt.Sprintf("http.scopes[%d]", i), "needs scope and agent")
		}
		agents[fmt.Sprintf("http.scopes[%d].agent", i)] = s.Agent
	}
	for key, a := range agents {
		if a == "" {
			continue
		}
		if _, ok := cfg.Agents[a]; !ok {
			return c, bad(key, "agent %q is not defined under agents", a)
		}
	}
	// URLs: checked here, or a mistake shows only when clients come,
	// each refused with 503 (the keys cannot be fetched), or, the issuer,
	// named to clients as their authorization server.
	for _, u := range []struct{ key, val string }{{"http.resource", h.Resource}, {"http.issuer", h.Issuer}, {"http.jwks_url", h.JWKSURL}} {
		if u.val == "" {
			continue
		}
		if p, err := url.Parse(u.val); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return c, bad(u.key, "%q is not an http(s) URL", u.val)
		}
	}
	for i, o := range h.AllowedOrigins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			strings.TrimSuffix(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
			return c, bad(fmt.Sprintf("http.allowed_origins[%d]", i), "%q is not an origin (scheme://host[:port])", o)
		}
	}
	if h.Issuer != "" && h.JWKSURL == "" && h.JWKSFile == "" {
		return c, bad("http.issuer", "needs jwks_url or jwks_file to verify tokens")
	}
	if (h.JWKSURL != "" || h.JWKSFile != "") && h.Issuer == "" {
		return c, bad("http.jwks_url", "needs issuer")
	}
	if h.JWKSURL != "" && h.JWKSFile != "" {
		return c, bad("http.jwks_url", "give jwks_url or jwks_file, not both")
	}
	if h.ClockSkew < 0 {
		return c, bad("http.clock_skew", "%s: must not be negative (0 for the default, %s)", h.ClockSkew, DefaultClockSkew)
	}
	if h.SessionTimeout < 0 {
		return c, bad("http.session_timeout", "%s: must not be negative (0 for the default, %s)", h.SessionTimeout, DefaultSessionTimeout)
	}
	if h.MaxCallsPerSession < 0 {
		return c, bad("http.max_calls_per_session", "%d: must be at least 1 (0 for the default, %d)", h.MaxCallsPerSession, DefaultMaxCallsPerSession)
	}
	if h.MaxSessions < 0 {
		return c, bad("http.max_sessions", "%d: must be at least 1 (0 for the default, %d)", h.MaxSessions, DefaultMaxSessions)
	}
	// A jwks_file not there was taken, and every token then refused at
	// its first use ("jwks_file: open …: no such file"), the cause in
	// no log at start: said now, as a missing server.signing_key is.
	if h.JWKSFile != "" {
		if _, err := os.Stat(h.JWKSFile); errors.Is(err, fs.ErrNotExist) {
			return c, fmt.Errorf("%s: mcp.http.jwks_file: %s does not exist", cfg.Where("mcp.http.jwks_file"), h.JWKSFile)
		}
	}
	return c, nil
}

// AddDefaultAgent adds the agent "mcp" with DefaultAgentGrants to cfg when
// the configuration uses it (mcp.agent unset or "mcp") and does not define
// it. Call it before building the host.
func AddDefaultAgent(cfg *config.Config) error {
	var c Config // the whole section, so that its keys are listed once
	if err := cfg.Decode(cfg.MCP, "mcp", &c); err != nil {
		return err
	}
	if c.Agent != "" && c.Agent != DefaultAgent {
		return nil
	}
	if _, ok := cfg.Agents[DefaultAgent]; ok {
		return nil
	}
	grants := DefaultAgentGrants()
	if _, err := abi.ParseGrants(grants); err != nil {
		return err
	}
	if cfg.Agents == nil {
		cfg.Agents = map[string]config.Agent{}
	}
	cfg.Agents[DefaultAgent] = config.Agent{Grants: grants}
	return nil
}
