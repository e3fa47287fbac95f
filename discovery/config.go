package discovery

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/trust"
)

// Config is the `discovery:` section of the configuration file.
//
//	discovery:
//	  dirs: [~/.local/share/aios/adapters]   # extra folders of cards / tool.aios.yaml
//	  desktop_dirs: [/usr/share/applications] # folders of .desktop entries
//	  watch: true              # watch folders for changes (default true)
//	  debounce: 50ms           # quiet time before a changed file is (re)loaded (at most 10× this, ≥ 1 s, after its first change)
//	  known_adapters: true     # match .desktop entries to the built-in library
//	  require_signature: false # refuse unsigned cards and bare artifacts (and unsigned remotes)
//	  keys:                    # trusted signing keys (see docs/trust.md)
//	    - {trust: Verified, jwks: keys/vendor.jwks.json}
//	    - {trust: Community, jwks_url: https://example.com/.well-known/jwks.json}
//	  remotes:                 # remote hosts / adapters (seed §3.2)
//	    - {url: http://127.0.0.1:7702, token_env: PEER_TOKEN}
//	  remote_refresh: 30s      # how often remote cards are re-fetched (and units whose key set could not be fetched retried)
//	  version_command: false   # may run `EXECUTABLE --version` when dpkg knows no version
//
// The folders of the top-level `plugins:` list are always scanned. When
// dirs / desktop_dirs are not given, the seed's system paths are used where
// they exist: /usr/share/aios/adapters, ~/.local/share/aios/adapters,
// /usr/share/applications, ~/.local/share/applications.
type Config struct {
	Dirs             []string          `yaml:"dirs"`
	DesktopDirs      []string          `yaml:"desktop_dirs"`
	Watch            *bool             `yaml:"watch"`
	Debounce         time.Duration     `yaml:"debounce"`
	KnownAdapters    *bool             `yaml:"known_adapters"`
	RequireSignature bool              `yaml:"require_signature"`
	Keys             []trust.KeyConfig `yaml:"keys"`
	Remotes          []RemoteConfig    `yaml:"remotes"`
	RemoteRefresh    time.Duration     `yaml:"remote_refresh"`
	// VersionCommand lets software detection run a card's
	// requirements.software.detection.executable with --version when the
	// dpkg database knows no version of it (off by default; only for the
	// built-in known adapters and cards of trust Verified or System: see
	// VersionCommandAllowed).
	VersionCommand bool `yaml:"version_command"`
}

// VersionCommandAllowed reports whether detection may run the executable
// of a card of trust level tl (kind is the discovery kind) for its
// version: discovery.version_command must be on, and the card must come
// from the host itself (a built-in known adapter, kind desktop: its
// executable path is compiled in, a .desktop file only selects it) or be
// trusted as Verified or System (signed by such a key or in a folder
// vouched for). An unsigned card could otherwise make the host run any
// program it names.
func (c Config) VersionCommandAllowed(kind string, tl abi.TrustLevel) bool {
	return c.VersionCommand && (kind == KindDesktop || tl >= abi.Verified)
}

// DefaultDebounce is the quiet time after the last event on a file.
const DefaultDebounce = 50 * time.Millisecond

// MaxDebounce is the longest discovery.debounce taken.
const MaxDebounce = 10 * time.Second

// MinRemoteRefresh is the shortest discovery.remote_refresh taken.
const MinRemoteRefresh = 100 * time.Millisecond

// LoadConfig decodes the discovery section of cfg (strict, with lines) and
// fills defaults.
func LoadConfig(cfg *config.Config) (Config, error) {
	var c Config
	if cfg != nil {
		if err := cfg.Decode(cfg.Discovery, "discovery", &c); err != nil {
			return c, err
		}
	}
	for _, d := range []struct {
		key string
		v   time.Duration
	}{{"debounce", c.Debounce}, {"remote_refresh", c.RemoteRefresh}} {
		if d.v < 0 {
			return c, fmt.Errorf("%s: discovery.%s: %s is negative (leave it out, or 0, for the default)", cfg.Where("discovery."+d.key), d.key, d.v)
		}
	}
	// A unit's reload waits up to ten times the debounce after its first
	// change: debounce: 1h held a changed plugin's old version for ten
	// hours, without a word (TestDebounceBounded).
	if c.Debounce > MaxDebounce {
		return c, fmt.Errorf("%s: discovery.debounce: %s is more than %s: it is the quiet time before a changed file is loaded, and a reload may wait ten times it (leave it out, or 0, for the default %s)", cfg.Where("discovery.debounce"), c.Debounce, MaxDebounce, DefaultDebounce)
	}
	// The timers of remote_refresh fire back to back at a tiny period
	// (1ns, or 1ms written for 1m): an idle host burnt a third of a core
	// and fetched its remotes' cards without pause
	// (TestTinyRemoteRefreshRefused).
	if c.RemoteRefresh > 0 && c.RemoteRefresh < MinRemoteRefresh {
		return c, fmt.Errorf("%s: discovery.remote_refresh: %s is below %s: it is how often remote cards are fetched and trusted key files read again (leave it out, or 0, for the default 30s)", cfg.Where("discovery.remote_refresh"), c.RemoteRefresh, MinRemoteRefresh)
	}
	// A remote's URL, timeout and token are checked here, with the
	// file's line: a missing or malformed url was only logged as a
	// provider not loaded ("remote \"\": not an http(s) URL"), naming no
	// line, and the host served on without it.
	for i, r := range c.Remotes {
		p := fmt.Sprintf("discovery.remotes[%d]", i)
		u, err := url.Parse(strings.TrimRight(r.URL, "/"))
		switch {
		case r.URL == "":
			return c, fmt.Errorf("%s: %s: no url: give the remote host's base URL, e.g. http://127.0.0.1:7702", cfg.Where(p), p)
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			shown := r.URL
			if err == nil {
				shown = u.Redacted()
			}
			return c, fmt.Errorf("%s: %s.url: %q is not an http(s) URL", cfg.Where(p+".url"), p, shown)
		case u.User != nil:
			// Go's client sends it as Basic auth with every request, and
			// the URL, password and all, would be in every error. (A user
			// name alone may be a token too: neither is shown.)
			shown := *u
			shown.User = url.User("xxxxx")
			return c, fmt.Errorf("%s: %s.url: %q holds a user name or password: the host authenticates to a remote with a bearer token only; give it as token or token_env, and the url without it", cfg.Where(p+".url"), p, shown.String())
		case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
			// The card's path is appended to the url: after a query it
			// went into the query, after a fragment it was not sent.
			return c, fmt.Errorf("%s: %s.url: %q has a query or fragment: give the remote host's base URL (scheme, host, port and a path at most), to which %s and /rpc are appended", cfg.Where(p+".url"), p, u.Redacted(), WellKnownPath)
		case r.Timeout < 0:
			return c, fmt.Errorf("%s: %s.timeout: %s is negative (leave it out, or 0, for the default 5s)", cfg.Where(p+".timeout"), p, r.Timeout)
		case r.Token != "" && r.TokenEnv != "":
			return c, fmt.Errorf("%s: %s: give token or token_env, not both", cfg.Where(p), p)
		}
	}
	if c.Debounce <= 0 {
		c.Debounce = DefaultDebounce
	}
	if c.RemoteRefresh <= 0 {
		c.RemoteRefresh = 30 * time.Second
	}
	// $HOME, else the account database's (config.HomeDir, as the
	// config's own paths): with HOME unset the default folders were
	// relative to the working directory.
	home := config.HomeDir()
	expand := func(list []string) []string {
		out := make([]string, 0, len(list))
		for _, p := range list {
			out = append(out, config.ExpandHome(p)) // "~/", "~name/"
		}
		return out
	}
	userDir := func(rel string) string {
		if home == "" {
			return "" // no home folder: none (existing leaves it out)
		}
		return filepath.Join(home, rel)
	}
	if c.Dirs == nil {
		c.Dirs = existing("/usr/share/aios/adapters", userDir(".local/share/aios/adapters"))
	}
	if c.DesktopDirs == nil {
		c.DesktopDirs = existing("/usr/share/applications", userDir(".local/share/applications"))
	}
	c.Dirs, c.DesktopDirs = expand(c.Dirs), expand(c.DesktopDirs)
	// A key file's "~/" is the home folder too (it was taken from the
	// config file's folder: <folder>/~/keys.json).
	for i := range c.Keys {
		c.Keys[i].JWKS = config.ExpandHome(c.Keys[i].JWKS)
	}
	// An empty folder name was the working directory: every file there
	// was tried as a card or tool.aios.yaml (plugins: [""] is refused
	// as well, by config.Validate). A "~name" of no account or an
	// environment variable ($HOME, which the file does not expand) named
	// a folder that is not there: nothing was watched, without a word
	// (TestSectionPathEnvVariableRefused).
	for _, ds := range []struct {
		key  string
		dirs []string
	}{{"discovery.dirs", c.Dirs}, {"discovery.desktop_dirs", c.DesktopDirs}} {
		for i, d := range ds.dirs {
			msg := config.PathProblem(d)
			if d == "" {
				msg = "empty folder name"
			}
			if msg != "" {
				p := fmt.Sprintf("%s[%d]", ds.key, i)
				return c, fmt.Errorf("%s: %s: %s", cfg.Where(p), p, msg)
			}
		}
	}
	for i, k := range c.Keys {
		if msg := config.PathProblem(k.JWKS); msg != "" {
			p := fmt.Sprintf("discovery.keys[%d].jwks", i)
			return c, fmt.Errorf("%s: %s: %s", cfg.Where(p), p, msg)
		}
	}
	return c, nil
}

func existing(paths ...string) []string {
	out := []string{}
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			out = append(out, p)
		}
	}
	return out
}

func (c Config) watch() bool         { return c.Watch == nil || *c.Watch }
func (c Config) knownAdapters() bool { return c.KnownAdapters == nil || *c.KnownAdapters }
