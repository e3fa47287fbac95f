package mcp

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/internal/screen"
)

// Defaults of a server entry.
const (
	DefaultConnectTimeout = 20 * time.Second
	DefaultReconnectMin   = 100 * time.Millisecond
	MinConnectTimeout     = 100 * time.Millisecond // a shorter connect_timeout is refused
	DefaultReconnectMax   = 30 * time.Second
	DefaultMaxResources   = 100
)

// ServerConfig is one entry of `mcp.servers`: either a stdio command or a
// streamable-HTTP URL.
//
//	mcp:
//	  servers:
//	    everything:                      # tools become mcp-everything-<tool>
//	      command: npx                   # stdio server: the program (a relative path: to dir, else to the config file's folder) ...
//	      args: [mcp-server-everything]  # ... and its arguments
//	      env: {DEBUG: "0"}              # added to a minimal environment (PATH, HOME, LANG, TMPDIR); its PATH finds the command first
//	      inherit_env: false             # pass the host's whole environment instead
//	      dir: samples/mcp               # working directory (relative to the config file)
//	      sandbox:                       # confine the process (Linux; sandbox_linux.go)
//	        read: [/srv/data]            # may read (and execute) beneath these, besides the system's
//	        write: [/tmp/everything]     # may write, make and remove beneath these
//	        network: false               # TCP/UDP sockets (never unix sockets)
//	    search:
//	      url: https://mcp.example.com/mcp   # streamable-HTTP server
//	      token_env: SEARCH_TOKEN            # bearer token from the environment (or token: "...")
//	      oauth:                             # or get it with OAuth client credentials (oauth.go)
//	        client_id: aios-host
//	        client_secret_env: SEARCH_CLIENT_SECRET
//	      resources: false               # do not import resources as read tools (default true)
//	      resource_templates: false      # do not import resource templates as read tools (default true)
//	      prompts: false                 # do not import prompts as tools (default true)
//	      max_resources: 100             # at most this many resources (and as many templates, and prompts) become tools
//	      connect_timeout: 20s           # to connect and list at start-up
//	      reconnect_max: 30s             # longest wait between reconnect attempts
//	      disabled: false
//	      trust_hints: false             # take readOnly/destructive/idempotent hints at their word
//	      sampling: false                # answer sampling/createMessage with the host's inference (needs Inference)
//	      screen: strip                  # results and descriptions: strip hidden text, flag injections (flag, refuse, off)
//	      max_message_bytes: 16777216    # longest message read from the server (16 MiB, the go-sdk's limit)
//	      decode_budget: 268435456       # host memory one message may decode to, estimated before decoding (256 MiB)
//	      capability_required:           # MCP has no capabilities: add them per tool
//	        read_file: ["ReadSpace(files)"]  # (MCP tool name → capabilities its aios tool requires)
type ServerConfig struct {
	Command    string            `yaml:"command"`
	Args       []string          `yaml:"args"`
	Env        map[string]string `yaml:"env"`
	InheritEnv bool              `yaml:"inherit_env"`
	Dir        string            `yaml:"dir"`
	URL        string            `yaml:"url"`
	Token      string            `yaml:"token"`
	TokenEnv   string            `yaml:"token_env"`
	// OAuth gets the bearer token with the client credentials grant
	// (oauth.go) instead of token or token_env.
	OAuth          *OAuth        `yaml:"oauth"`
	Resources      *bool         `yaml:"resources"`
	Templates      *bool         `yaml:"resource_templates"`
	Prompts        *bool         `yaml:"prompts"`
	MaxResources   int           `yaml:"max_resources"`
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
	ReconnectMax   time.Duration `yaml:"reconnect_max"`
	Disabled       bool          `yaml:"disabled"`
	// TrustHints takes the server's tool annotations at their word:
	// readOnlyHint makes a tool's permission level low, destructiveHint
	// false medium, idempotentHint marks it idempotent. Off by default (the
	// seed's conservative import: high, not idempotent, slow).
	TrustHints bool `yaml:"trust_hints"`
	// Sampling offers the server MCP sampling (sampling/createMessage),
	// answered with the host's inference for the caller of a tool call
	// in flight (every caller's, when several are): the server's
	// provider asks for Inference, which its trust level or
	// providers.<id>.grants must allow, and the caller must hold it too
	// (sampling.go). Off by default.
	Sampling bool `yaml:"sampling"`
	// Screen is what the bridge does with the server's results, error
	// texts and tool descriptions (internal/screen): "strip" (the
	// default) removes hidden characters and terminal escapes and logs
	// them and any injection-like phrase; "flag" only logs; "refuse"
	// refuses a result (InvalidResult) or leaves out a tool with any
	// finding; "off" does nothing. docs/mcp.md, "Screening".
	Screen string `yaml:"screen"`
	screen screen.Policy
	// MaxMessageBytes bounds one message of the server (a stdio line, an
	// HTTP response body, an SSE event): a longer one is refused while it
	// is read. Default DefaultMaxMessageBytes (16 MiB, the go-sdk's own
	// limit).
	MaxMessageBytes int `yaml:"max_message_bytes"`
	// DecodeBudget bounds the host memory one message may decode to, as
	// internal/wire.CheckCost estimates it from the message's bytes before
	// the go-sdk decodes it. Default DefaultDecodeBudget (256 MiB, the
	// budget of worker frames and WASM guests' messages). budget.go.
	DecodeBudget int64 `yaml:"decode_budget"`
	// Sandbox confines a stdio server's process: it may read and execute
	// only the system's folders, its command, its dir and Read, write
	// only beneath Write, open network sockets only with Network, and
	// gains no privileges (Linux: no_new_privs, Landlock, seccomp; where
	// they are missing the server is not started). nil: the process has
	// the host's rights.
	Sandbox *Sandbox `yaml:"sandbox"`
	// CapabilityRequired maps an MCP tool name (or a glob such as
	// "write_*") to capabilities its aios tool requires of callers, on top
	// of Network(host) for URL servers: MCP tools carry no capabilities, so
	// the operator who imports a server says what its tools touch. The
	// tools of its resources, templates and prompts are matched by their
	// name after mcp-{server}- (read-…, prompt-…): "*" covers them too.
	CapabilityRequired map[string][]string `yaml:"capability_required"`
}

// Sandbox is a stdio server's `sandbox:` (ServerConfig.Sandbox). Paths
// are absolute, start with ~/ (the user's home) or are relative to the
// configuration file's folder.
type Sandbox struct {
	Read    []string `yaml:"read"`
	Write   []string `yaml:"write"`
	Network bool     `yaml:"network"`
}

// SandboxSystemPaths are what every sandboxed server may read and execute
// from: the system's programs, libraries and configuration (TLS roots,
// the resolver's), and the device files programs open.
var SandboxSystemPaths = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc",
	"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"}

// requiredFor returns the configured capabilities of MCP tool name, sorted
// by pattern, duplicates dropped.
func (sc ServerConfig) requiredFor(tool string) []string {
	if len(sc.CapabilityRequired) == 0 {
		return nil
	}
	pats := make([]string, 0, len(sc.CapabilityRequired))
	for p := range sc.CapabilityRequired {
		pats = append(pats, p)
	}
	sort.Strings(pats)
	var out []string
	seen := map[string]bool{}
	for _, p := range pats {
		if !abi.Glob(p, tool) {
			continue
		}
		for _, c := range sc.CapabilityRequired[p] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// section is the `mcp:` section as the bridge sees it: its own key is
// `servers`; the others belong to the outbound server (package mcpserver)
// and are left to it.
type section struct {
	Servers map[string]ServerConfig `yaml:"servers"`
	Agent   yaml.Node               `yaml:"agent"`
	Export  yaml.Node               `yaml:"export"`
	HTTP    yaml.Node               `yaml:"http"`
	// Resources is mcpserver's (Space objects as resources).
	Resources yaml.Node `yaml:"resources"`
	// ToolsList is mcpserver's too (which exported tools tools/list
	// shows). Every key of mcpserver.Config must be here, or the
	// documented key is refused as unknown (TestSectionKeysMatchServer).
	ToolsList yaml.Node `yaml:"tools_list"`
	// StdinDrain is mcpserver's (aios-host mcp at the end of its stdin).
	StdinDrain yaml.Node `yaml:"stdin_drain"`
}

var serverNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// ValidateServerName checks a server name: 1 to 63 characters from a-z 0-9
// '-' '_', starting with a letter or digit, so that mcp-{server}-{tool} is a
// valid tool name and org.aios.mcp.{server} a valid provider id.
func ValidateServerName(name string) error {
	if !serverNameRE.MatchString(name) {
		return fmt.Errorf("invalid MCP server name %q: use 1-63 characters from a-z 0-9 - _ starting with a letter or digit", name)
	}
	return nil
}

// ProviderID is the provider id of server name's tools.
func ProviderID(name string) string { return "org.aios.mcp." + name }

// Source is where the server's provider says it comes from (Publish's
// source; the host records "mcp:" and it): its URL as displayURL shows it,
// or its command line.
func (sc ServerConfig) Source() string {
	if sc.URL != "" {
		return displayURL(sc.URL)
	}
	return strings.TrimSpace(sc.Command + " " + strings.Join(shownArgs(sc.Args), " "))
}

// shownArgs is args as logs and Status show them: a URL's password and
// query (postgresql://user:password@host/db) and the value of a flag whose
// name says it is a secret (--api-key KEY, --token=KEY; secretName) are
// not shown, as a URL server's are not (displayURL).
func shownArgs(args []string) []string {
	out := make([]string, len(args))
	hide := false // the argument before was a secret's flag
	for i, a := range args {
		flag, _, hasValue := strings.Cut(a, "=")
		isFlag := strings.HasPrefix(a, "-") && len(strings.TrimLeft(flag, "-")) > 0
		switch {
		case hide && !isFlag:
			out[i] = "xxxxx"
		case isFlag && hasValue && secretName(strings.TrimLeft(flag, "-")):
			out[i] = flag + "=xxxxx"
		case strings.Contains(a, "://"):
			out[i] = displayURL(a)
		default:
			out[i] = a
		}
		hide = isFlag && !hasValue && secretName(strings.TrimLeft(flag, "-"))
	}
	return out
}

// LoadConfig decodes `mcp.servers` of cfg (strict, with line numbers), fills
// defaults and checks every entry. Relative dirs are resolved against the
// configuration file's folder.
func LoadConfig(cfg *config.Config) (map[string]ServerConfig, error) {
	var sec section
	if err := cfg.Decode(cfg.MCP, "mcp", &sec); err != nil {
		return nil, err
	}
	base := ""
	if cfg.File != "" {
		base = filepath.Dir(cfg.File)
	}
	names := make([]string, 0, len(sec.Servers))
	for n := range sec.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	var errs []string
	out := make(map[string]ServerConfig, len(names))
	for _, n := range names {
		sc, err := sec.Servers[n].normalize(n, base)
		if err != nil {
			line := keyLine(&cfg.MCP, "servers", n)
			// An error about one key of the entry ("sandbox.read[0]: …",
			// "url …") is placed at that key's line, not the entry's.
			if m := entryKeyRE.FindStringSubmatch(err.Error()); m != nil {
				if l := cfg.Line(config.JoinKey("mcp.servers", n) + "." + m[1]); l > 0 {
					line = l
				}
			}
			file := cfg.File
			if file == "" {
				file = "config"
			}
			if line > 0 {
				errs = append(errs, fmt.Sprintf("%s:%d: mcp.servers.%s: %v", file, line, n, err))
			} else {
				errs = append(errs, fmt.Sprintf("%s: mcp.servers.%s: %v", file, n, err))
			}
			continue
		}
		out[n] = sc
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return out, nil
}

// entryKeyRE matches the key path an error of normalize starts with.
var entryKeyRE = regexp.MustCompile(`^([a-z_]+(?:\.[a-z_]+|\[[0-9]+\])*)[: ]`)

// normalize checks one entry and fills its defaults.
func (sc ServerConfig) normalize(name, base string) (ServerConfig, error) {
	if err := ValidateServerName(name); err != nil {
		return sc, err
	}
	switch {
	case sc.Command == "" && sc.URL == "":
		return sc, fmt.Errorf("needs a command (stdio server) or a url (streamable-HTTP server)")
	case sc.Command != "" && sc.URL != "":
		return sc, fmt.Errorf("has both command %q and url %q; give one", sc.Command, displayURL(sc.URL)) // not its key or password
	}
	if sc.URL != "" {
		u, err := url.Parse(sc.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return sc, fmt.Errorf("url %q: want an http:// or https:// URL", displayURL(sc.URL))
		}
		if len(sc.Args) > 0 || len(sc.Env) > 0 || sc.Dir != "" || sc.InheritEnv {
			return sc, fmt.Errorf("args, env, inherit_env and dir apply to command servers only")
		}
	} else if sc.Token != "" || sc.TokenEnv != "" || sc.OAuth != nil {
		return sc, fmt.Errorf("token, token_env and oauth apply to url servers only")
	}
	if sc.Token != "" && sc.TokenEnv != "" {
		return sc, fmt.Errorf("has both token and token_env; give one")
	}
	if sc.OAuth != nil {
		if sc.Token != "" || sc.TokenEnv != "" {
			return sc, fmt.Errorf("oauth: has both oauth and a token (token or token_env); give one: with oauth the bridge gets its tokens itself")
		}
		if err := sc.OAuth.check(); err != nil {
			return sc, err
		}
	}
	for k := range sc.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return sc, fmt.Errorf("env: invalid variable name %q", k)
		}
	}
	sc.Dir = config.ExpandHome(sc.Dir) // "~/": the home folder, as for sandbox paths
	if msg := config.PathProblem(sc.Dir); msg != "" {
		// $HOME/srv: the file expands no variables (TestSectionPathEnvVariableRefused).
		return sc, fmt.Errorf("dir: %s", msg)
	}
	if sc.Dir != "" && !filepath.IsAbs(sc.Dir) && base != "" {
		sc.Dir = filepath.Join(base, sc.Dir)
	}
	if c := sc.Command; c != "" && !filepath.IsAbs(c) && (strings.ContainsRune(c, '/') || strings.ContainsRune(c, filepath.Separator)) {
		// A relative path (./bin/server) was run relative to the host's
		// working directory: the config started its server from its own
		// folder only. It is the config file's folder's, as dir and the
		// sandbox paths are, or dir's when given (`cd dir && ./server`).
		// A bare name (node) is still looked up in PATH.
		if sc.Dir != "" {
			sc.Command = filepath.Join(sc.Dir, c)
		} else if base != "" {
			sc.Command = filepath.Join(base, c)
		}
	}
	if sb := sc.Sandbox; sb != nil {
		if sc.URL != "" {
			return sc, fmt.Errorf("sandbox applies to command servers only")
		}
		c := &Sandbox{Network: sb.Network}
		for _, l := range []struct {
			key  string
			in   []string
			into *[]string
		}{{"read", sb.Read, &c.Read}, {"write", sb.Write, &c.Write}} {
			for i, p := range l.in {
				if p == "" {
					return sc, fmt.Errorf("sandbox.%s[%d]: empty path", l.key, i)
				}
				if msg := config.PathProblem(config.ExpandHome(p)); msg != "" {
					// read: [$HOME/docs] granted a folder that is not there.
					return sc, fmt.Errorf("sandbox.%s[%d]: %s", l.key, i, msg)
				}
				if p == "~" || strings.HasPrefix(p, "~/") {
					// $HOME, else the account database's (config.HomeDir).
					home := config.HomeDir()
					if home == "" {
						return sc, fmt.Errorf("sandbox.%s[%d]: %q: no home folder ($HOME is unset and the account has none)", l.key, i, p)
					}
					p = filepath.Join(home, p[1:])
				}
				if !filepath.IsAbs(p) {
					if base == "" {
						return sc, fmt.Errorf("sandbox.%s[%d]: %q is relative, and there is no configuration file to resolve it against", l.key, i, p)
					}
					p = filepath.Join(base, p)
				}
				*l.into = append(*l.into, filepath.Clean(p))
			}
		}
		sc.Sandbox = c
	}
	for pat, caps := range sc.CapabilityRequired {
		if pat == "" || len(caps) == 0 {
			return sc, fmt.Errorf("capability_required: %q needs a tool name (or glob) and at least one capability", pat)
		}
		for _, c := range caps {
			if _, err := abi.ParseCapability(c); err != nil {
				return sc, fmt.Errorf("capability_required.%s: %v", pat, err)
			}
		}
	}
	p, err := screen.ParsePolicy(sc.Screen)
	if err != nil {
		return sc, err
	}
	sc.screen = p
	for _, n := range []struct {
		key string
		neg bool
		v   any
	}{
		{"max_resources", sc.MaxResources < 0, sc.MaxResources}, {"connect_timeout", sc.ConnectTimeout < 0, sc.ConnectTimeout},
		{"reconnect_max", sc.ReconnectMax < 0, sc.ReconnectMax}, {"max_message_bytes", sc.MaxMessageBytes < 0, sc.MaxMessageBytes},
		{"decode_budget", sc.DecodeBudget < 0, sc.DecodeBudget},
	} {
		if n.neg {
			return sc, fmt.Errorf("%s must not be negative, got %v (leave it out, or 0, for the default)", n.key, n.v)
		}
	}
	if sc.MaxMessageBytes == 0 {
		sc.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if sc.DecodeBudget == 0 {
		sc.DecodeBudget = DefaultDecodeBudget
	}
	if sc.MaxResources == 0 {
		sc.MaxResources = DefaultMaxResources
	}
	if sc.ConnectTimeout == 0 {
		sc.ConnectTimeout = DefaultConnectTimeout
	}
	if sc.ReconnectMax == 0 {
		sc.ReconnectMax = DefaultReconnectMax
	}
	if sc.ConnectTimeout < MinConnectTimeout {
		// No server starts and answers initialize in 1ms (1m meant):
		// every attempt timed out and the server was started again for
		// good (TestTinyConnectTimeoutRefused).
		return sc, fmt.Errorf("connect_timeout %s is below %s: no server would start and answer initialize within it, and it would be started again and again (leave it out, or 0, for the default %s)", sc.ConnectTimeout, MinConnectTimeout, DefaultConnectTimeout)
	}
	if sc.ReconnectMax < DefaultReconnectMin {
		// The backoff fell to it after the first retry: a server that
		// fails at once was started again ten times a second for good
		// (TestTinyReconnectMaxRefused).
		return sc, fmt.Errorf("reconnect_max %s is below %s, the first wait: a server that fails would be started again without pause (leave it out, or 0, for the default %s)", sc.ReconnectMax, DefaultReconnectMin, DefaultReconnectMax)
	}
	return sc, nil
}

// policy is the screening policy (the zero value: strip).
func (sc ServerConfig) policy() screen.Policy {
	if sc.screen == "" {
		return screen.Strip
	}
	return sc.screen
}

// importResources says whether resources become read tools.
func (sc ServerConfig) importResources() bool { return sc.Resources == nil || *sc.Resources }

// importPrompts says whether prompts become tools.
func (sc ServerConfig) importPrompts() bool { return sc.Prompts == nil || *sc.Prompts }

// importTemplates says whether resource templates become read tools.
func (sc ServerConfig) importTemplates() bool { return sc.Templates == nil || *sc.Templates }

// token returns the bearer token of a URL server ("" when none).
func (sc ServerConfig) token() (string, error) {
	return literalOrEnv(sc.Token, "token_env", sc.TokenEnv)
}

// errEnvUnset marks literalOrEnv's refusal: the host's environment does
// not change while it runs, so the server is not retried (server.run).
var errEnvUnset = errors.New("empty or unset in the host's environment")

// literalOrEnv is the value of the environment variable env when it is
// named (key is its config key, for the error), else literal.
func literalOrEnv(literal, key, env string) (string, error) {
	if env == "" {
		return literal, nil
	}
	v := os.Getenv(env)
	if v == "" {
		return "", fmt.Errorf("%s %s is %w", key, env, errEnvUnset)
	}
	return v, nil
}

// endpointHost is the host name a URL server's tools need Network() for.
func (sc ServerConfig) endpointHost() string {
	u, err := url.Parse(sc.URL)
	if err != nil {
		return ""
	}
	// In the form callers' Network grants are matched in.
	if h, err := abi.NetworkHost(u.Hostname()); err == nil {
		return h
	}
	return u.Hostname()
}

// command is the program a command server runs: a bare name (node) is
// looked up in the PATH its env gives, when it gives one, as env(1)
// does, then as exec does, in the host's: the host's PATH alone ran
// another program of that name, or found none ("executable file not
// found in $PATH") where the PATH the server was given holds it.
func (sc ServerConfig) command() string {
	path, ok := sc.Env["PATH"]
	if !ok || strings.ContainsRune(sc.Command, '/') || strings.ContainsRune(sc.Command, filepath.Separator) {
		return sc.Command
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue // (exec refuses a program found through a relative PATH entry)
		}
		if p, err := exec.LookPath(filepath.Join(dir, sc.Command)); err == nil {
			return p
		}
	}
	return sc.Command
}

// environ is the environment of a command server: a minimal one (PATH,
// HOME, LANG, TMPDIR, USER) plus env, or the whole host environment with
// inherit_env.
func (sc ServerConfig) environ() []string {
	var env []string
	if sc.InheritEnv {
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, bridgeDepthEnv+"=") { // set below
				env = append(env, kv)
			}
		}
	} else {
		for _, k := range []string{"PATH", "HOME", "LANG", "TMPDIR", "USER", "SYSTEMROOT"} {
			if v, ok := os.LookupEnv(k); ok {
				env = append(env, k+"="+v)
			}
		}
	}
	keys := make([]string, 0, len(sc.Env))
	for k := range sc.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != bridgeDepthEnv {
			env = append(env, k+"="+sc.Env[k])
		}
	}
	return append(env, bridgeDepthEnv+"="+strconv.Itoa(bridgeDepth()+1))
}

// bridgeDepthEnv counts the MCP bridges above a process: a stdio server
// gets its host's count plus one, and a host at maxBridgeDepth starts no
// stdio server (an `aios-host mcp` command bridged with the same config
// would otherwise start copies of itself without end).
const (
	bridgeDepthEnv = "AIOS_HOST_MCP_BRIDGE_DEPTH"
	maxBridgeDepth = 4
)

// bridgeDepth is this process's count (0 when unset or not a number).
func bridgeDepth() int {
	n, err := strconv.Atoi(os.Getenv(bridgeDepthEnv))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// keyLine returns the line of the key at path inside the mapping n (0 when
// absent).
func keyLine(n *yaml.Node, path ...string) int {
	line := 0
	for _, k := range path {
		for n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
			n = n.Content[0]
		}
		if n == nil || n.Kind != yaml.MappingNode {
			return line
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				line, next = n.Content[i].Line, n.Content[i+1]
				break
			}
		}
		if next == nil {
			return line
		}
		n = next
	}
	return line
}
