// Package config reads the aios-host configuration: one YAML file holding
// plugin folders, the data directory (spaces and audit log), agents and their
// grants, rate limits, limits, trust policy, per-provider overrides and the
// inference backend. Decoding is strict: an unknown key or a bad value is an
// error naming the file, the line and the key path, e.g.
//
//	config.yaml:12: agents.cli.grants[1]: capability "Foo(": missing closing parenthesis
//
// Sections owned by other packages (runtimes.<name>, server, discovery, mcp)
// are kept as yaml.Node and decoded by their owners with DecodeSection or
// Config.Decode, which apply the same strictness.
//
// Defaults are safe: see Default. config/example.yaml documents every key.
//
// config imports abi and yaml.v3 only; it must never import host, registry,
// runtimes or cmd.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aios-host/aios-host/abi"
	"gopkg.in/yaml.v3"
)

// Config is the whole configuration file.
type Config struct {
	// Plugins lists folders scanned for providers (.wasm, .js, ...).
	Plugins []string `yaml:"plugins"`
	// Data is the state directory: spaces under Data/spaces, the audit log
	// at Data/audit.jsonl unless Audit.Path says otherwise.
	Data string `yaml:"data"`
	// Spaces overrides the Space storage directory (default Data/spaces).
	Spaces string `yaml:"spaces"`
	// DefaultAgent is the caller used when none is named (`call` without --as).
	DefaultAgent string           `yaml:"default_agent"`
	Audit        AuditConfig      `yaml:"audit"`
	Limits       Limits           `yaml:"limits"`
	Agents       map[string]Agent `yaml:"agents"`
	RateLimits   RateLimits       `yaml:"rate_limits"`
	Trust        TrustPolicy      `yaml:"trust"`
	// Providers holds per-provider overrides, keyed by provider id.
	Providers map[string]ProviderOverride `yaml:"providers"`
	Inference Inference                   `yaml:"inference"`
	// Registry configures the tool registry.
	Registry RegistryConfig `yaml:"registry"`

	// Runtimes holds one section per runtime, each decoded by its runtime
	// with DecodeSection or Decode; a name that is not in KnownRuntimes is
	// an error.
	Runtimes map[string]yaml.Node `yaml:"runtimes"`
	// Server, Discovery and MCP are decoded by their owners.
	Server    yaml.Node `yaml:"server"`
	Discovery yaml.Node `yaml:"discovery"`
	MCP       yaml.Node `yaml:"mcp"`

	// File is the name the configuration was read from ("" for Default).
	File string `yaml:"-"`
	// lines maps key paths to the line they were read from.
	lines map[string]int
	// shared holds the key paths whose value is an anchored node that was
	// checked (and its keys' lines recorded) under another path.
	shared map[string]bool
	// nullLists holds the key paths of the lists and mappings the file
	// gives as null (`methods:` with no value): they decode as none, which
	// for some keys means the opposite of an empty one, or another value
	// than the operator meant (Validate refuses those).
	nullLists map[string]bool
}

// KnownRuntimes are the sections of runtimes: that some package decodes:
// js (cmd/aios-host, runtimes/js), python (runtimes/python) and wasm
// (cmd/aios-host, runtimes/wasm). A runtime that reads a new section must
// be added here; TestKnownRuntimesMatchCode compares this list with the
// cfg.Runtimes["name"] look-ups in the repository's code.
var KnownRuntimes = []string{"js", "python", "wasm"}

// AuditConfig configures the audit log (see docs/audit.md).
type AuditConfig struct {
	// Disabled turns the audit log off. Not recommended.
	Disabled bool `yaml:"disabled"`
	// Path of the log (default Data/audit.jsonl).
	Path string `yaml:"path"`
	// SyncInterval bounds how long a written record waits for fsync.
	SyncInterval time.Duration `yaml:"sync_interval"`
	// SyncEvery fsyncs after this many records.
	SyncEvery int `yaml:"sync_every"`
	// FlushDelay is how long the writer lets records gather before it
	// writes them as one group (0: the audit package's default, 1ms). A
	// process crash can lose the records of at most this long.
	FlushDelay time.Duration `yaml:"flush_delay"`
	// Buffer is the queue length between calls and the writer.
	Buffer int `yaml:"buffer"`
	// RepairTail cuts an incomplete last line left by a crash at start-up
	// instead of refusing to start.
	RepairTail bool `yaml:"repair_tail"`
	// MaxBytes rotates the log when it reaches this size: the file is
	// renamed <stem>.<first seq>-<last seq>.jsonl and a new one continues
	// the chain (0: never rotate).
	MaxBytes int64 `yaml:"max_bytes"`
	// MaxFiles keeps at most this many rotated files: older ones are
	// deleted after the anchor of each one's last record is appended to
	// <stem>.pruned.jsonl (0: keep every file).
	MaxFiles int `yaml:"max_files"`
}

// Limits bound calls.
type Limits struct {
	MaxParamsBytes  int           `yaml:"max_params_bytes"`
	MaxResultBytes  int           `yaml:"max_result_bytes"`
	MaxCallDepth    int           `yaml:"max_call_depth"`
	DefaultDeadline time.Duration `yaml:"default_deadline"`
	// MaxDeadline caps a deadline a caller asks for. The host counts
	// either deadline longer than 100 years as 100 years.
	MaxDeadline time.Duration `yaml:"max_deadline"`
	// MaxObjectBytes bounds one Space storage object.
	MaxObjectBytes int64 `yaml:"max_object_bytes"`
	// MaxSpaceBytes is every space's quota: a write that would make its
	// objects pass it fails with TooLarge (0: no quota).
	MaxSpaceBytes int64 `yaml:"max_space_bytes"`
	// MinFreeBytes is the free disk a Space write must leave on the
	// store's file system (0: none): tools cannot fill the disk the audit
	// log needs.
	MinFreeBytes int64 `yaml:"min_free_bytes"`
	// MaxToolsPerProvider bounds the tools one provider may register: each
	// costs about 90 µs and 3.5 KB to register (its schemas are compiled),
	// and a few bytes of a guest's code can generate a registration of a
	// million tools.
	MaxToolsPerProvider int `yaml:"max_tools_per_provider"`
	// MaxPluginBytes bounds a plugin file the host reads (loads, or hashes
	// for its Adapter Card): the largest real ones, Go WASM guests, are a
	// few MiB; a bigger file is a mistake or an attempt to make the host
	// read gigabytes.
	MaxPluginBytes int64 `yaml:"max_plugin_bytes"`
	// MaxDecodeBytes bounds the host memory the large messages handled at
	// once (JSON-RPC requests and MCP arguments of 64 KiB and more) may
	// decode to, together, as estimated before decoding; one that does not
	// fit waits (up to 10 s) for the others to be answered.
	MaxDecodeBytes int64 `yaml:"max_decode_bytes"`
}

// Agent is a caller identity and what it may do.
type Agent struct {
	// Grants are capability strings (see abi.ParseCapability).
	Grants []string `yaml:"grants"`
	// Rate limits this agent's calls (overrides rate_limits.per_caller).
	Rate *Rate `yaml:"rate"`
	// MaxPermission is the highest tool permission level (public, low,
	// medium, high, critical; seed 001 §2.3) this agent may call, nested
	// calls made on its behalf included. Empty: see AgentMaxPermission.
	MaxPermission string `yaml:"max_permission"`
	// Methods lists the JSON-RPC methods (config.RPCMethods) this agent
	// may use on the host's socket and HTTP JSON-RPC endpoint, and
	// MetricsMethod for GET /metrics: exact names, a prefix ending in "*"
	// ("aios/registry.*") or "*". Unset: all of them.
	// initialize, aios/registry.unsubscribe and notifications/cancelled
	// are always allowed. See
	// MethodAllowed.
	Methods []string `yaml:"methods"`
}

// RPCMethods are the methods of the host's JSON-RPC API (server package),
// the names agents.NAME.methods chooses from.
var RPCMethods = []string{
	"initialize",
	"tools/list",
	"tools/call",
	"aios/registry.search",
	"aios/registry.info",
	"aios/registry.diff",
	"aios/registry.refresh",
	"aios/registry.subscribe",
	"aios/registry.unsubscribe",
	"notifications/cancelled",
}

// MetricsMethod names GET /metrics in agents.NAME.methods: an agent whose
// methods leave it out may not read the metrics with its token (they name
// every tool and provider, and count their calls).
const MetricsMethod = "metrics"

// AgentMethods are the names agents.NAME.methods chooses from: the
// JSON-RPC methods and MetricsMethod.
var AgentMethods = append(slices.Clone(RPCMethods), MetricsMethod)

// methodPatternMatches reports whether one entry of agents.NAME.methods
// names method.
func methodPatternMatches(pattern, method string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(method, prefix)
	}
	return pattern == method
}

// MethodAllowed reports whether the agent with these settings may use the
// JSON-RPC method: every method when Methods is unset (nil), initialize,
// aios/registry.unsubscribe and notifications/cancelled always, else a
// method one entry names.
func (a Agent) MethodAllowed(method string) bool {
	if a.Methods == nil || method == "initialize" || method == "aios/registry.unsubscribe" || method == "notifications/cancelled" {
		return true
	}
	for _, p := range a.Methods {
		if methodPatternMatches(p, method) {
			return true
		}
	}
	return false
}

// PermissionRank orders the permission levels: public 0, low 1, medium 2,
// high 3, critical 4; ok is false for anything else.
func PermissionRank(level string) (rank int, ok bool) {
	switch level {
	case abi.PermissionPublic:
		return 0, true
	case abi.PermissionLow:
		return 1, true
	case abi.PermissionMedium:
		return 2, true
	case abi.PermissionHigh:
		return 3, true
	case abi.PermissionCritical:
		return 4, true
	}
	return 0, false
}

// DefaultMaxPermission is the ceiling of an agent that sets no
// max_permission and is not the default agent: every level but critical.
// MCP clients and remote peers (token agents) thus cannot reach critical
// tools unless their agent is raised explicitly; lower them with e.g.
// agents.mcp.max_permission: medium.
const DefaultMaxPermission = abi.PermissionHigh

// AgentMaxPermission returns the permission ceiling of agent name: its
// max_permission when set; critical for the default agent (default_agent,
// "cli" unless configured: the local user at the command line); else
// DefaultMaxPermission.
func (c *Config) AgentMaxPermission(name string) string {
	if a, ok := c.Agents[name]; ok && a.MaxPermission != "" {
		return a.MaxPermission
	}
	if name != "" && name == c.DefaultAgent {
		return abi.PermissionCritical
	}
	return DefaultMaxPermission
}

// Rate is a token bucket: PerSecond tokens per second, Burst at most.
type Rate struct {
	PerSecond float64 `yaml:"per_second"`
	Burst     int     `yaml:"burst"`
}

// UnmarshalYAML reads a rate as a whole: the keys the file leaves out are
// zero, not those of the rate the field held before (the defaults': a file
// giving "rate_limits.global: {per_second: 5}" kept the default global's
// burst of 20000, and "{burst: 3}" its 10000/s).
func (r *Rate) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		// yaml.v3's own words for a value of the wrong kind.
		v := ""
		if n.Kind == yaml.ScalarNode {
			v = n.Value
			if len(v) > 10 {
				v = v[:7] + "..."
			}
			v = " `" + v + "`"
		}
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: cannot unmarshal %s%s into config.Rate", n.Line, n.ShortTag(), v)}}
	}
	type fields Rate // without this method
	var f fields
	if err := n.Decode(&f); err != nil {
		return err
	}
	*r = Rate(f)
	return nil
}

// RateLimits are the host-wide limits. A nil Rate means no limit.
type RateLimits struct {
	// Global limits all calls together.
	Global *Rate `yaml:"global"`
	// PerCaller applies to each agent that has no rate of its own.
	PerCaller *Rate `yaml:"per_caller"`
	// PerTool limits calls to a tool (all callers together), by tool name.
	PerTool map[string]Rate `yaml:"per_tool"`
}

// TrustPolicy caps what providers may be granted, by trust level.
type TrustPolicy struct {
	// Caps maps a trust level name (System, Verified, Community, Untrusted)
	// to the capabilities a provider of that level may hold. A provider's
	// grants are what it asks for, intersected with its level's caps.
	Caps map[string][]string `yaml:"caps"`
	// Unsigned is the level of a provider with no valid signature.
	Unsigned string `yaml:"unsigned"`
	// Folders gives every provider loaded from a folder (a plugin directory)
	// a trust level, for folders the user vouches for. Signed providers keep
	// the higher of the two.
	Folders map[string]string `yaml:"folders"`
}

// ProviderOverride adjusts one provider, by id.
type ProviderOverride struct {
	// Disabled skips the provider at load.
	Disabled bool `yaml:"disabled"`
	// Trust sets the provider's trust level (a level name).
	Trust string `yaml:"trust"`
	// Source, when set, binds Trust to where the provider is loaded from: a
	// file or folder path (taken from the working directory, like every
	// path of the config; "~/" is the home folder), which the provider's
	// file must be or be inside, or another source exactly as the host
	// names it (a remote card's URL). A provider with this id from anywhere
	// else keeps the level it has without the override. Without Source the
	// level applies to whatever file claims the id (docs/trust.md).
	Source string `yaml:"source"`
	// Grants, when set, narrows what the provider may hold: its effective
	// grants are what it asks for ∩ its trust level's caps ∩ these.
	Grants []string `yaml:"grants"`
	// Rate limits calls to the provider's tools (all callers together).
	Rate *Rate `yaml:"rate"`
}

// RegistryConfig configures the tool registry (docs/registry.md).
type RegistryConfig struct {
	// SemverCheck says what happens when a tool version's schemas break
	// callers of the version below it (by any provider) without a major
	// version increase (for 0.x: a minor one): "warn" (the default)
	// registers it and logs a warning, "refuse" refuses the provider's
	// registration, "off" does not compare.
	SemverCheck string `yaml:"semver_check"`
}

// The registry.semver_check values.
const (
	SemverWarn   = "warn"
	SemverRefuse = "refuse"
	SemverOff    = "off"
)

// Inference configures the backend behind Env.Complete (an OpenAI-compatible
// chat completions endpoint). An empty URL disables inference.
type Inference struct {
	URL       string `yaml:"url"`
	Model     string `yaml:"model"`
	APIKeyEnv string `yaml:"api_key_env"`
	// APIKeyHeader is the request header the key goes in: empty (or
	// Authorization) sends "Authorization: Bearer KEY"; another name
	// sends the key as that header's whole value (Azure OpenAI's
	// "api-key").
	APIKeyHeader string        `yaml:"api_key_header"`
	Timeout      time.Duration `yaml:"timeout"`
	// Rate bounds the completions of all tools together (each costs the
	// backend's time, and often money); none when unset.
	Rate *Rate `yaml:"rate"`
	// MaxConcurrent bounds the requests to the backend in flight at once;
	// a completion past it waits for one to end, until its call's deadline.
	// Default DefaultInferenceConcurrency.
	MaxConcurrent int `yaml:"max_concurrent"`
}

// DefaultInferenceConcurrency is inference.max_concurrent's default.
const DefaultInferenceConcurrency = 16

// MaxFileBytes bounds a configuration file: Load refuses a larger one (or
// one that never ends, such as /dev/zero) instead of reading it until
// memory runs out.
const MaxFileBytes = 16 << 20

// Load reads and validates the configuration file at path. An empty path
// is an error (Default is the configuration without a file).
func Load(path string) (*Config, error) {
	if path == "" {
		return nil, errors.New("config: Load of an empty path: name a configuration file, or use config.Default() for none")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("config: %s is more than %d bytes", path, MaxFileBytes)
	}
	return Parse(data, path)
}

// Parse reads a configuration from data; name is used in error messages.
// Keys not present keep their Default values. Every error in the file is
// reported (joined), each with its line and key path.
func Parse(data []byte, name string) (*Config, error) {
	if name == "" {
		name = "config"
	}
	cfg := Default()
	cfg.File = name
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return cfg, nil // empty file: all defaults
		}
		return nil, yamlSyntaxError(err, name, data)
	}
	// yaml.v3 reads one document; a second one would be ignored silently.
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, &Error{File: name, Line: next.Line, Msg: "a second YAML document starts here: the configuration is one document (remove the --- line and merge the two)"}
	case !errors.Is(err, io.EOF):
		return nil, yamlSyntaxError(err, name, data)
	}
	if root.Kind == 0 {
		return cfg, nil // empty file: all defaults
	}
	defFolders := maps.Clone(cfg.Trust.Folders)
	cfg.nullLists = map[string]bool{}
	if err := decodeStrictNulls(&root, cfg, name, "", cfg.lines, cfg.shared, cfg.nullLists); err != nil {
		return nil, err
	}
	cfg.expandHome()
	// A permission level in any case, as a trust level is read
	// (max_permission: Critical was refused while trust: verified
	// was taken).
	for name, ag := range cfg.Agents {
		if lower := strings.ToLower(ag.MaxPermission); lower != ag.MaxPermission {
			if _, ok := PermissionRank(lower); ok {
				ag.MaxPermission = lower
				cfg.Agents[name] = ag
			}
		}
	}
	cfg.Trust.Folders = dropShadowedFolders(cfg.Trust.Folders, defFolders)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Line returns the line a key path was read from (0 when unknown). Paths
// look like "agents.cli.grants[1]" or `providers["org.x.y"].trust`. Paths
// inside the sections kept as yaml.Node are recorded too (to 16 levels,
// aliases not followed), so their owners can name the line of a problem
// found after decoding, e.g. Line("discovery.keys[0]").
func (c *Config) Line(path string) int { return c.lines[path] }

// LineOf returns the line of path as error messages name it: its own line,
// else (for a key the file leaves out, or one inside an alias) the line of
// the nearest enclosing key the file gives; 0 when the file gives none.
func (c *Config) LineOf(path string) int { return c.lineOf(path) }

// Where is where an error about key path puts itself: "FILE:LINE" (the
// line LineOf gives), else the file's name, else "config" (no file: the
// built-in defaults, or a nil c).
func (c *Config) Where(path string) string {
	switch {
	case c == nil || c.File == "":
		return "config"
	case c.lineOf(path) > 0:
		return fmt.Sprintf("%s:%d", c.File, c.lineOf(path))
	}
	return c.File
}

// lineOf returns the line of path, or, when path lies inside a value given
// by an alias whose anchored node was checked under another path (so the
// lines of its keys are recorded there), the line of that alias's key, or
// else the line of the nearest enclosing key the file gives.
func (c *Config) lineOf(path string) int {
	if l := c.lines[path]; l > 0 {
		return l
	}
	// The paths enclosing path are path cut before one of its '.' or
	// '[' (a cut inside a quoted key names no recorded path): looked up,
	// longest first, rather than every recorded path compared with path,
	// which made a file of many keys and many errors take minutes (each
	// error walked every key of the file).
	for i := len(path) - 1; i > 0; i-- {
		if (path[i] == '.' || path[i] == '[') && c.shared[path[:i]] {
			return c.lines[path[:i]]
		}
	}
	// A key the file leaves out (a rate without per_second): the line of
	// the nearest enclosing key that it gives.
	for i := len(path) - 1; i > 0; i-- {
		if path[i] == '.' || path[i] == '[' {
			if l, ok := c.lines[path[:i]]; ok {
				return l
			}
		}
	}
	return 0
}

// Decode decodes a section owned by another package, as DecodeSection does,
// but names this configuration's file and the section's path in errors
// ("config.yaml:40: runtimes.wasm.max_memory: ..."). path is the section's
// key path, e.g. "runtimes.wasm" or "server".
func (c *Config) Decode(node yaml.Node, path string, out any) error {
	if node.Kind == 0 {
		return nil
	}
	name := c.File
	if name == "" {
		name = "config"
	}
	return decodeStrict(&node, out, name, path, nil, nil)
}

// DecodeSection decodes node (a section kept as yaml.Node) into out with the
// same strictness as the file: unknown keys and mistyped values are errors
// naming the line and the key path inside the section. An absent section
// (zero Node) leaves out unchanged, so out may be pre-filled with defaults.
func DecodeSection(node yaml.Node, out any) error {
	if node.Kind == 0 {
		return nil
	}
	return decodeStrict(&node, out, "config", "", nil, nil)
}

// DecodeFile decodes node, the document of another package's YAML file
// (a tool.aios.yaml), into out with the strictness of the configuration
// file: unknown keys ("did you mean"), fractional integers and mistyped
// values are errors naming file, line and key path.
func DecodeFile(node *yaml.Node, file string, out any) error {
	return decodeStrict(node, out, file, "", nil, nil)
}

// AuditPath returns where the audit log lives.
func (c *Config) AuditPath() string {
	if c.Audit.Path != "" {
		return c.Audit.Path
	}
	return filepath.Join(c.Data, "audit.jsonl")
}

// SpacesDir returns where Space storage lives.
func (c *Config) SpacesDir() string {
	if c.Spaces != "" {
		return c.Spaces
	}
	return filepath.Join(c.Data, "spaces")
}

// AgentGrants returns the parsed grants of agent name.
func (c *Config) AgentGrants(name string) (abi.Grants, error) {
	a, ok := c.Agents[name]
	if !ok {
		return nil, fmt.Errorf("unknown agent %q (configured agents: %v)", name, sortedKeys(c.Agents))
	}
	return abi.ParseGrants(a.Grants)
}

// TrustCaps returns the parsed caps of a trust level (none when the policy
// does not name the level).
func (c *Config) TrustCaps(level abi.TrustLevel) (abi.Grants, error) {
	if caps, ok := c.TrustCapsOf(level); ok {
		return abi.ParseGrants(caps)
	}
	return abi.Grants{}, nil
}

// TrustCapsOf returns trust.caps' entry for level, whose name is
// case-insensitive like every trust level name of the config: a key
// spelled otherwise than the level's own name ("community") is one the
// file gave, so it wins over the default entry ("Community") the file
// left in place. ok is false when no key names the level.
func (c *Config) TrustCapsOf(level abi.TrustLevel) (caps []string, ok bool) {
	name := level.String()
	for k, v := range c.Trust.Caps {
		if k != name && strings.EqualFold(k, name) {
			return v, true
		}
	}
	caps, ok = c.Trust.Caps[name]
	return caps, ok
}

// TrustAppliesTo reports whether o's Trust applies to a provider loaded
// from source: always when o has no Source; else when source is o.Source,
// or an absolute path of a file or folder inside it (o.Source taken as a
// path, after "~/", filepath.Abs and Clean).
func (o ProviderOverride) TrustAppliesTo(source string) bool {
	if o.Source == "" || source == o.Source {
		return true
	}
	// A source that is no absolute path is none of a file's (discovery
	// names files by absolute paths): "builtin", "mcp:<command line>", a
	// URL, none at all. Resolved against the working directory, it was
	// "inside" a bound folder that holds it.
	if strings.Contains(o.Source, "://") || !filepath.IsAbs(source) {
		return false
	}
	want, got := absClean(ExpandHome(o.Source)), absClean(source)
	if got == want {
		return true
	}
	rel, err := filepath.Rel(want, got)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// UnsignedTrust returns the level of unsigned providers.
func (c *Config) UnsignedTrust() abi.TrustLevel {
	l, err := abi.ParseTrustLevel(c.Trust.Unsigned)
	if err != nil {
		return abi.Untrusted
	}
	return l
}

// FolderTrust returns the level configured for providers loaded from dir,
// or UnsignedTrust when dir has no entry. Paths are compared after
// filepath.Abs and Clean.
func (c *Config) FolderTrust(dir string) abi.TrustLevel {
	want := absClean(dir)
	for folder, level := range c.Trust.Folders {
		if absClean(folder) == want {
			if l, err := abi.ParseTrustLevel(level); err == nil {
				return l
			}
		}
	}
	return c.UnsignedTrust()
}

// UnmatchedTrustFolders lists the trust.folders entries that are none of
// the plugin folders nor of also (the other folders whose providers take
// their folder's level: discovery.dirs), all compared after filepath.Abs
// and Clean, so a relative entry is taken from the working directory, like
// every path of the config: such an entry gives no provider its level.
// The bundled samples folder, which the defaults vouch for, is not listed.
func (c *Config) UnmatchedTrustFolders(also ...string) []string {
	plugins := make(map[string]bool, len(c.Plugins)+len(also)+1)
	for _, p := range append(slices.Clone(c.Plugins), also...) {
		plugins[absClean(p)] = true
	}
	if b := BundledPlugins(); b != "" {
		plugins[absClean(b)] = true
	}
	var out []string
	for folder := range c.Trust.Folders {
		if !plugins[absClean(folder)] {
			out = append(out, folder)
		}
	}
	slices.Sort(out)
	return out
}

// ExpandHome returns p with a leading "~" or "~/" replaced by the home
// folder, and a leading "~name" or "~name/" by the home folder of the
// account name, as a shell reads them (p itself when it has none, or
// when there is no such home folder: see tildeUser), as every path setting
// of the configuration reads it.
func ExpandHome(p string) string {
	if !strings.HasPrefix(p, "~") {
		return p
	}
	name, rest, _ := strings.Cut(p[1:], "/")
	home := ""
	if name == "" {
		home = HomeDir()
	} else if u, err := user.Lookup(name); err == nil && filepath.IsAbs(u.HomeDir) {
		// "~aios/state" was left as it was: a folder named "~aios"
		// in the working directory.
		home = u.HomeDir
	}
	if home == "" {
		return p
	}
	return filepath.Join(home, rest)
}

// tildeUser returns name when p, a path setting after ExpandHome, still
// starts with "~name": no account has that name (or a home folder), and
// the path would make a folder named "~name" in the working directory.
func tildeUser(p string) string {
	if !strings.HasPrefix(p, "~") {
		return ""
	}
	name, _, _ := strings.Cut(p[1:], "/")
	return name
}

// HomeDir is $HOME (os.UserHomeDir), else, when it is not set (a systemd
// service without User=, `env -i`), the user's home folder from the
// account database, as a shell's ~ is; "" when neither gives one.
func HomeDir() string {
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return home
	}
	if u, err := user.Current(); err == nil && filepath.IsAbs(u.HomeDir) {
		return u.HomeDir
	}
	return ""
}

// expandHome replaces a leading "~/" in path settings with the home folder.
func (c *Config) expandHome() {
	exp := func(p *string) { *p = ExpandHome(*p) }
	exp(&c.Data)
	exp(&c.Spaces)
	exp(&c.Audit.Path)
	for i := range c.Plugins {
		exp(&c.Plugins[i])
	}
	folders := make(map[string]string, len(c.Trust.Folders))
	for f, l := range c.Trust.Folders {
		exp(&f)
		folders[f] = l
	}
	c.Trust.Folders = folders
}

// dropShadowedFolders removes from folders the default entries (defaults:
// the bundled samples folder, by its absolute path) that an entry of the
// file names otherwise (relative, with "./" or a trailing slash): the file
// sets that folder's level, and FolderTrust, which walks the map, must not
// meet the default's level first.
func dropShadowedFolders(folders, defaults map[string]string) map[string]string {
	for d := range defaults {
		for k := range folders {
			if _, isDefault := defaults[k]; !isDefault && absClean(k) == absClean(d) {
				delete(folders, d)
				break
			}
		}
	}
	return folders
}

func absClean(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// errList collects errors and joins them, for reporting every problem at once.
type errList []error

func (l *errList) add(err error) {
	if err != nil {
		*l = append(*l, err)
	}
}

func (l errList) err() error {
	if len(l) == 0 {
		return nil
	}
	return errors.Join(l...)
}
