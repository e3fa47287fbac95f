package server

import (
	"crypto/sha256"
	"fmt"
	"github.com/aios-host/aios-host/internal/fsperm"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aios-host/aios-host/config"
)

// Config is the `server:` section of the configuration file.
//
//	server:
//	  socket: /run/user/1000/aios-host.sock  # default: <data>/aios-host.sock (see DefaultSocket)
//	  http: 127.0.0.1:7700      # off unless set (or --http)
//	  uids: {"1001": reader}    # socket peers by uid → agent; the host's own uid → default_agent unless listed
//	  tokens:                   # HTTP bearer tokens → agents
//	    - {agent: peer, token_env: PEER_TOKEN, name: laptop}  # or token: "…" / token_file: path; name: audit principal token:NAME (default AGENT#INDEX)
//	  max_body_bytes: 8388608   # one HTTP body or socket message (8 MiB)
//	  max_batch: 100            # requests in one batch
//	  list_page_size: 1000      # tools in one tools/list answer; past it a nextCursor
//	  max_conns_per_uid: 128    # socket connections one peer uid holds at once
//	  max_requests_per_token: 256  # HTTP /rpc requests one bearer token runs at once; past it 429 RateLimited
//	  max_batch_answer_bytes: 33554432  # the answers of one batch together (32 MiB); past it the rest are TooLarge
//	  read_timeout: 10s         # to read one whole request once it has started
//	  idle_timeout: 5m          # a socket connection with no request is closed
//	  write_timeout: 10s        # a response or notification making no progress this long is given up
//	  id: org.aios.host.mybox   # adapter id of the host's own card (default org.aios.host.<hostname>)
//	  name: My box              # its display name
//	  public_url: http://127.0.0.1:7700  # base URL written into the card (default http://<http address>); http(s) with a host
//	  signing_key: keys/host.pem        # sign the card (PEM private key); its JWK is served at /.well-known/jwks.json
//	  signing_kid: ""                   # key id (default the key's RFC 7638 thumbprint)
//	  metrics_auth: loopback            # GET /metrics: token but from the local user (loopback peer and Host, not proxied; default), token, or none
//	  export: ["pdf-*"]                 # tools listed in the card besides the mcp_exportable ones of providers above Untrusted (glob patterns)
type Config struct {
	Socket       string            `yaml:"socket"`
	HTTP         string            `yaml:"http"`
	UIDs         map[string]string `yaml:"uids"`
	Tokens       []TokenConfig     `yaml:"tokens"`
	MaxBodyBytes int64             `yaml:"max_body_bytes"`
	MaxBatch     int               `yaml:"max_batch"`
	// MaxBatchAnswer bounds the answers of one batch together: a few
	// bytes of [{"method":"tools/list"},…] ask for a large answer each.
	MaxBatchAnswer int64         `yaml:"max_batch_answer_bytes"`
	ReadTimeout    time.Duration `yaml:"read_timeout"`
	IdleTimeout    time.Duration `yaml:"idle_timeout"`
	WriteTimeout   time.Duration `yaml:"write_timeout"`
	ID             string        `yaml:"id"`
	Name           string        `yaml:"name"`
	PublicURL      string        `yaml:"public_url"`
	SigningKey     string        `yaml:"signing_key"`
	SigningKID     string        `yaml:"signing_kid"`
	Export         []string      `yaml:"export"`
	// MetricsAuth says who may read GET /metrics, which names every tool
	// and provider: "loopback" (default: the local user without a token,
	// a loopback peer naming a loopback Host, not proxied (notLocal); any
	// other with a valid bearer token), "token"
	// (everyone with one), "none" (everyone).
	MetricsAuth string `yaml:"metrics_auth"`
	// ListPageSize is how many tools one tools/list answer holds; past it
	// the answer has a nextCursor (MCP pagination).
	ListPageSize int `yaml:"list_page_size"`
	// MaxConnsPerUID bounds the socket connections one peer uid holds.
	MaxConnsPerUID int `yaml:"max_conns_per_uid"`
	// MaxRequestsPerToken bounds the HTTP /rpc requests one bearer token
	// runs at once (each holds a goroutine, its body and its calls).
	MaxRequestsPerToken int `yaml:"max_requests_per_token"`
}

// TokenConfig maps one bearer token to an agent.
type TokenConfig struct {
	Agent string `yaml:"agent"`
	// Name names the token in audit records (principal "token:NAME");
	// default AGENT#I, I its index in server.tokens.
	Name      string `yaml:"name"`
	Token     string `yaml:"token"`
	TokenEnv  string `yaml:"token_env"`
	TokenFile string `yaml:"token_file"`
}

// Defaults.
const (
	DefaultMaxBodyBytes = 8 << 20
	DefaultMaxBatch     = 100
	// DefaultListPageSize is the go-sdk MCP server's page size.
	DefaultListPageSize = 1000
	// DefaultMaxConnsPerUID is 128 connections (each runs up to 32 calls).
	DefaultMaxConnsPerUID = 128
	// DefaultMaxRequestsPerToken is 256 HTTP requests at once (8 socket
	// connections' worth of calls).
	DefaultMaxRequestsPerToken = 256
	// DefaultMaxBatchAnswer is 32 MiB: room for one result of the default
	// limits.max_result_bytes (16 MiB) and the rest of a batch.
	DefaultMaxBatchAnswer = 32 << 20
	// minConnTimeout is the least read_timeout, idle_timeout and
	// write_timeout may be (TestTinyConnTimeoutsRefused).
	minConnTimeout = 10 * time.Millisecond

	DefaultReadTimeout  = 10 * time.Second
	DefaultIdleTimeout  = 5 * time.Minute
	DefaultWriteTimeout = 10 * time.Second
	SocketName          = "aios-host.sock"
)

// DefaultSocket is where the host listens and the CLI looks:
// <data>/aios-host.sock, so each state directory (each configuration) has
// its own host. When that path is too long for a unix socket (over 100
// bytes), /tmp/aios-host-<uid>-<hash of data dir>.sock is used instead.
func DefaultSocket(cfg *config.Config) string {
	data := ""
	if cfg != nil {
		data = cfg.Data
	}
	if data != "" {
		if p := filepath.Join(data, SocketName); len(p) <= 100 {
			return p
		}
	}
	sum := sha256.Sum256([]byte(data))
	return filepath.Join(os.TempDir(), fmt.Sprintf("aios-host-%d-%x.sock", os.Getuid(), sum[:6]))
}

// LoadConfig decodes the server section (strict) and fills defaults.
func LoadConfig(cfg *config.Config) (Config, error) {
	var c Config
	if cfg != nil {
		if err := cfg.Decode(cfg.Server, "server", &c); err != nil {
			return c, err
		}
	}
	// 0 (or leaving the key out) means the default; a negative value is
	// a mistake, said rather than replaced.
	for _, n := range []struct {
		key string
		v   int64
		d   time.Duration
	}{
		{key: "max_body_bytes", v: c.MaxBodyBytes}, {key: "max_batch", v: int64(c.MaxBatch)},
		{key: "max_batch_answer_bytes", v: c.MaxBatchAnswer}, {key: "list_page_size", v: int64(c.ListPageSize)},
		{key: "max_conns_per_uid", v: int64(c.MaxConnsPerUID)}, {key: "max_requests_per_token", v: int64(c.MaxRequestsPerToken)},
		{key: "read_timeout", d: c.ReadTimeout}, {key: "idle_timeout", d: c.IdleTimeout}, {key: "write_timeout", d: c.WriteTimeout},
	} {
		switch {
		case n.v < 0:
			return c, fmt.Errorf("%s: server.%s: %d is negative (leave it out, or 0, for the default)", cfg.Where("server."+n.key), n.key, n.v)
		case n.d < 0:
			return c, fmt.Errorf("%s: server.%s: %s is negative (leave it out, or 0, for the default)", cfg.Where("server."+n.key), n.key, n.d)
		case n.d > 0 && n.d < minConnTimeout:
			// 1ns, or 1ms written for 1m: every socket connection was
			// closed at once, the clients told only that the server
			// closed it, and nothing said in the log.
			return c, fmt.Errorf("%s: server.%s: %s is below %s, which closes every connection at once (1m, not 1ms?)", cfg.Where("server."+n.key), n.key, n.d, minConnTimeout)
		}
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.MaxBatch <= 0 {
		c.MaxBatch = DefaultMaxBatch
	}
	if c.MaxConnsPerUID <= 0 {
		c.MaxConnsPerUID = DefaultMaxConnsPerUID
	}
	if c.MaxRequestsPerToken <= 0 {
		c.MaxRequestsPerToken = DefaultMaxRequestsPerToken
	}
	if c.ListPageSize <= 0 {
		c.ListPageSize = DefaultListPageSize
	}
	if c.MaxBatchAnswer <= 0 {
		c.MaxBatchAnswer = DefaultMaxBatchAnswer
	}
	switch c.MetricsAuth {
	case "":
		c.MetricsAuth = "loopback"
	case "loopback", "token", "none":
	default:
		return c, fmt.Errorf("%s: server.metrics_auth: %q: want loopback, token or none", cfg.Where("server.metrics_auth"), c.MetricsAuth)
	}
	if c.PublicURL != "" {
		// The card's endpoints and the /mcp resource are this base with
		// a path appended: a trailing slash made them "//rpc" (answered
		// with a redirect a POST does not survive), and a value without
		// a scheme or host (127.0.0.1:7700) named endpoints no peer
		// could call.
		u, err := url.Parse(c.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return c, fmt.Errorf("%s: server.public_url: %q is not an http or https URL with a host and no query (such as https://aios.example.com or http://127.0.0.1:7700)", cfg.Where("server.public_url"), c.PublicURL)
		}
		c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	}
	if c.ReadTimeout <= 0 {
		c.ReadTimeout = DefaultReadTimeout
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.Socket == "" {
		c.Socket = DefaultSocket(cfg)
	}
	// "~/" is the home folder, as in the other paths of the file (data,
	// plugins): a socket: ~/aios.sock made a folder named "~".
	c.Socket = config.ExpandHome(c.Socket)
	c.SigningKey = config.ExpandHome(c.SigningKey)
	for i := range c.Tokens {
		c.Tokens[i].TokenFile = config.ExpandHome(c.Tokens[i].TokenFile)
	}
	// A "~name" of no account or an environment variable ($XDG_RUNTIME_DIR,
	// which the file does not expand) made a folder of that name in the
	// working directory (TestSectionPathEnvVariableRefused).
	paths := []struct{ key, p string }{{"server.socket", c.Socket}, {"server.signing_key", c.SigningKey}}
	for i, t := range c.Tokens {
		paths = append(paths, struct{ key, p string }{fmt.Sprintf("server.tokens[%d].token_file", i), t.TokenFile})
	}
	for _, s := range paths {
		if msg := config.PathProblem(s.p); msg != "" {
			return c, fmt.Errorf("%s: %s: %s", cfg.Where(s.key), s.key, msg)
		}
	}
	// Two keys naming one uid ("1001" and "01001") would each set its
	// agent, the last in Go's map order winning: the peer one agent on
	// one start and another on the next.
	seen := map[uint64]string{}
	for _, uid := range slices.Sorted(maps.Keys(c.UIDs)) {
		n, err := strconv.ParseUint(uid, 10, 32)
		p := config.JoinKey("server.uids", uid)
		if err != nil {
			return c, fmt.Errorf("%s: %s: %q is not a numeric uid", cfg.Where(p), p, uid)
		}
		if o, dup := seen[n]; dup {
			return c, fmt.Errorf("%s: %s: uid %d is also server.uids.%s (agent %s, here %s): write each uid once", cfg.Where(p), p, n, o, c.UIDs[o], c.UIDs[uid])
		}
		seen[n] = uid
	}
	names := map[string]int{}
	for i := range c.Tokens {
		t := &c.Tokens[i]
		if t.Agent == "" {
			p := fmt.Sprintf("server.tokens[%d]", i)
			return c, fmt.Errorf("%s: %s: agent is required", cfg.Where(p), p)
		}
		if t.Name == "" {
			t.Name = t.Agent + "#" + strconv.Itoa(i)
		}
		if j, dup := names[t.Name]; dup {
			p := fmt.Sprintf("server.tokens[%d]", i)
			return c, fmt.Errorf("%s: %s: name %q is also server.tokens[%d]'s; audit records tell tokens apart by name", cfg.Where(p), p, t.Name, j)
		}
		names[t.Name] = i
		n := 0
		for _, s := range []string{t.Token, t.TokenEnv, t.TokenFile} {
			if s != "" {
				n++
			}
		}
		if n != 1 {
			p := fmt.Sprintf("server.tokens[%d]", i)
			return c, fmt.Errorf("%s: %s: give exactly one of token, token_env, token_file (agent %s)", cfg.Where(p), p, t.Agent)
		}
	}
	return c, nil
}

// value resolves the token's secret.
func (t TokenConfig) value(base string) (string, error) {
	switch {
	case t.TokenEnv != "":
		v := strings.TrimSpace(os.Getenv(t.TokenEnv)) // as a presented token is (authenticate)
		if v == "" {
			return "", fmt.Errorf("token of agent %s: environment variable %s is empty", t.Agent, t.TokenEnv)
		}
		return v, nil
	case t.TokenFile != "":
		p := t.TokenFile
		if !filepath.IsAbs(p) && base != "" {
			p = filepath.Join(base, p)
		}
		b, err := fsperm.ReadRegular(p, maxTokenFileBytes)
		if err != nil {
			return "", fmt.Errorf("token of agent %s: %w", t.Agent, err)
		}
		if threat, err := secretFileSafe(p, "token"); err != nil {
			return "", fmt.Errorf("token of agent %s: token_file %s is not safe: %v: another account could %s and call as agent %s over HTTP (chmod o-rwx,g-w, or chown it to this user; or give the token by token_env)",
				t.Agent, p, err, threat, t.Agent)
		}
		s := strings.TrimSpace(string(b))
		if s == "" {
			return "", fmt.Errorf("token of agent %s: %s is empty", t.Agent, p)
		}
		return s, nil
	}
	// Trimmed too (token: | leaves a newline): a presented token is, so
	// one written with white space around it could never be presented.
	v := strings.TrimSpace(t.Token)
	if v == "" {
		return "", fmt.Errorf("token of agent %s: token is empty (only white space)", t.Agent)
	}
	return v, nil
}

// secretFileSafe refuses a secret file (a token_file, the signing_key) that an account
// other than root or the host's could write, as discovery.keys refuses a
// key file (fsperm.OwnedSafely: the file or a folder on its way writable by
// group or others, a sticky folder excepted, or owned by another user), or
// that every account may read. Its group may read it: a token shared on
// purpose.
// threat says what another account could do with the file, which holds
// a secret of the kind what ("token", "key").
func secretFileSafe(path, what string) (threat string, err error) {
	st, err := os.Stat(path)
	if err != nil { // (gone since it was read)
		return "replace it with one of its choosing", err
	}
	if err := fsperm.OwnedSafely(path, st); err != nil {
		return "write a " + what + " of its choosing", err
	}
	if st.Mode().Perm()&0o004 != 0 {
		return "read the " + what, fmt.Errorf("%s is readable by others", path)
	}
	return "", nil
}

// minTokenChars is the shortest bearer token New takes without a warning:
// 16 random hex characters are 64 bits.
const minTokenChars = 16

// maxTokenFileBytes bounds a token_file: a bearer token is a line, not a
// file's worth.
const maxTokenFileBytes = 64 << 10

// maxKeyFileBytes bounds server.signing_key (a PEM private key is a few
// KiB, an RSA one with its parameters well under this).
const maxKeyFileBytes = 1 << 20
