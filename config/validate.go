package config

import (
	"fmt"
	"math"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/editdist"
	"github.com/aios-host/aios-host/space"
	"gopkg.in/yaml.v3"
)

var agentNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$`)

// ValidateAgentName checks an agent name: 1 to 64 characters from A-Z a-z
// 0-9 '_' '.' '-', starting with a letter or digit.
func ValidateAgentName(name string) error {
	if !agentNameRE.MatchString(name) {
		return fmt.Errorf("invalid agent name %q: use 1-64 characters from A-Z a-z 0-9 _ . - starting with a letter or digit", name)
	}
	return nil
}

var toolPatternRE = regexp.MustCompile(`^[A-Za-z0-9_.*?\-]{1,128}$`)

// MinSyncInterval is the shortest audit.sync_interval taken.
const MinSyncInterval = 10 * time.Millisecond

// MaxAuditBuffer is the most records audit.buffer lets wait between the
// calls and the audit writer.
const MaxAuditBuffer = 1 << 20

// Validate checks every value and reports all problems at once, each naming
// its key path (and line, when the configuration came from a file).
func (c *Config) Validate() error {
	v := validator{c: c}
	for i, p := range c.Plugins {
		if p == "" {
			v.bad(fmt.Sprintf("plugins[%d]", i), "empty folder name")
		}
		v.pathSetting(fmt.Sprintf("plugins[%d]", i), p)
	}
	v.pathSetting("data", c.Data)
	v.pathSetting("spaces", c.Spaces)
	v.pathSetting("audit.path", c.Audit.Path)
	for _, folder := range sortedKeys(c.Trust.Folders) {
		v.pathSetting(joinKey("trust.folders", folder), folder)
	}
	if c.Data == "" {
		v.bad("data", "empty data directory")
	}
	if c.DefaultAgent != "" {
		if _, ok := c.Agents[c.DefaultAgent]; !ok {
			v.bad("default_agent", fmt.Sprintf("agent %q is not configured under agents (have %v)", c.DefaultAgent, sortedKeys(c.Agents)))
		}
	}

	a := c.Audit
	if !a.Disabled {
		v.positiveDur("audit.sync_interval", a.SyncInterval)
		if a.SyncInterval > 0 && a.SyncInterval < MinSyncInterval {
			// The writer's timer fired back to back: an idle host burnt
			// 40 % of a core at 1ns (TestTinyAuditSyncIntervalRefused).
			v.bad("audit.sync_interval", fmt.Sprintf("%s is below %s: the timer would wake the audit writer back to back; to fsync after every record give sync_every: 1", a.SyncInterval, MinSyncInterval))
		}
		v.positive("audit.sync_every", a.SyncEvery)
		v.positive("audit.buffer", a.Buffer)
		if a.Buffer > MaxAuditBuffer {
			// The queue holds that many records in memory when the disk
			// is slow, and a crash loses them: buffer: 1000000000 was
			// taken (TestAuditBufferBounded).
			v.bad("audit.buffer", fmt.Sprintf("%d is more than %d records waiting in memory (a crash loses them; the default is 8192)", a.Buffer, MaxAuditBuffer))
		}
		if a.FlushDelay < 0 || a.FlushDelay > time.Second {
			v.bad("audit.flush_delay", fmt.Sprintf("%s is not between 0 and 1s", a.FlushDelay))
		}
		if a.MaxBytes != 0 && a.MaxBytes < 1<<20 {
			v.bad("audit.max_bytes", fmt.Sprintf("%d is below 1 MiB (1048576); 0 turns rotation off", a.MaxBytes))
		}
		if a.MaxFiles < 0 {
			v.bad("audit.max_files", fmt.Sprintf("%d is negative; 0 keeps every rotated file", a.MaxFiles))
		}
		if a.MaxFiles > 0 && a.MaxBytes == 0 {
			v.bad("audit.max_files", fmt.Sprintf("%d needs rotation: audit.max_bytes is 0, so no file is ever rotated", a.MaxFiles))
		}
	}

	l := c.Limits
	v.positive("limits.max_params_bytes", l.MaxParamsBytes)
	v.positive("limits.max_result_bytes", l.MaxResultBytes)
	v.positive("limits.max_call_depth", l.MaxCallDepth)
	if l.MaxCallDepth > 64 {
		v.bad("limits.max_call_depth", fmt.Sprintf("%d is more than 64", l.MaxCallDepth))
	}
	v.positiveDur("limits.default_deadline", l.DefaultDeadline)
	v.positiveDur("limits.max_deadline", l.MaxDeadline)
	// A call's deadline is whole milliseconds: below 1ms every call
	// failed "within its deadline of 0s" (TestSubMillisecondDeadlineRefused).
	for _, d := range []struct {
		key string
		v   time.Duration
	}{{"limits.default_deadline", l.DefaultDeadline}, {"limits.max_deadline", l.MaxDeadline}} {
		if d.v > 0 && d.v < time.Millisecond {
			v.bad(d.key, fmt.Sprintf("%s is below 1ms, the shortest deadline a call can have (deadlines are whole milliseconds)", d.v))
		}
	}
	switch {
	case l.MaxDeadline <= 0 || l.DefaultDeadline <= l.MaxDeadline:
	case c.File != "" && c.Line("limits.default_deadline") == 0:
		// Only max_deadline was written: name it, not a key the file lacks.
		v.bad("limits.max_deadline", fmt.Sprintf("%s is shorter than limits.default_deadline (its default %s, the deadline of a call that asks for none): set default_deadline too, at most %s", l.MaxDeadline, l.DefaultDeadline, l.MaxDeadline))
	default:
		v.bad("limits.default_deadline", fmt.Sprintf("%s is longer than limits.max_deadline (%s)", l.DefaultDeadline, l.MaxDeadline))
	}
	if l.MaxObjectBytes <= 0 {
		v.bad("limits.max_object_bytes", fmt.Sprintf("must be positive, got %d", l.MaxObjectBytes))
	}
	if l.MaxSpaceBytes < 0 {
		v.bad("limits.max_space_bytes", fmt.Sprintf("must not be negative, got %d (0: no quota)", l.MaxSpaceBytes))
	}
	if l.MinFreeBytes < 0 {
		v.bad("limits.min_free_bytes", fmt.Sprintf("must not be negative, got %d (0: no reserve)", l.MinFreeBytes))
	}
	v.positive("limits.max_tools_per_provider", l.MaxToolsPerProvider)
	if l.MaxPluginBytes <= 0 {
		// 0 was taken, and read as the default 256 MiB, where 0 of the
		// other sizes (max_space_bytes, min_free_bytes, audit.max_bytes)
		// means none.
		v.bad("limits.max_plugin_bytes", fmt.Sprintf("must be positive, got %d (there is no unlimited; the default is %d)", l.MaxPluginBytes, DefaultMaxPluginBytes))
	}
	if l.MaxDecodeBytes <= 0 {
		v.bad("limits.max_decode_bytes", fmt.Sprintf("must be positive, got %d (there is no unlimited; the default is %d)", l.MaxDecodeBytes, DefaultMaxDecodeBytes))
	}

	for _, name := range sortedKeys(c.Agents) {
		p := joinKey("agents", name)
		if err := ValidateAgentName(name); err != nil {
			v.bad(p, err.Error())
		}
		ag := c.Agents[name]
		v.caps(p+".grants", ag.Grants)
		v.rate(p+".rate", ag.Rate, perCallerInstead(c.RateLimits.PerCaller))
		if ag.Rate == nil && c.nullLists[p+".rate"] && c.RateLimits.PerCaller != nil {
			// Decoded as no rate, which is per_caller's: an operator
			// exempting the agent, as global: null lifts the global
			// limit, had it held to per_caller silently.
			v.bad(p+".rate", fmt.Sprintf("empty (null), which gives the agent rate_limits.per_caller's %v/s, as leaving it out does, not no limit: no agent is exempt from per_caller, but a per_second above what it will ever call is no limit; give one, or leave rate out", c.RateLimits.PerCaller.PerSecond))
		}
		if _, ok := PermissionRank(ag.MaxPermission); ag.MaxPermission != "" && !ok {
			v.bad(p+".max_permission", fmt.Sprintf("%q is not one of public, low, medium, high, critical", ag.MaxPermission))
		}
		if ag.Methods == nil && c.nullLists[p+".methods"] {
			// Decoded as no list: every method, the opposite of [].
			v.bad(p+".methods", "empty (null), which would allow every method: give [] to allow none but initialize, list the methods, or leave methods out for all")
		}
		for i, m := range ag.Methods {
			if !slices.ContainsFunc(AgentMethods, func(k string) bool { return methodPatternMatches(m, k) }) {
				v.bad(fmt.Sprintf("%s.methods[%d]", p, i), fmt.Sprintf("%q names no JSON-RPC method of the host%s (known: %s; or a prefix ending in *, or * alone)", m, suggestMethod(m), strings.Join(AgentMethods, ", ")))
			}
		}
	}

	v.rate("rate_limits.global", c.RateLimits.Global, "rate_limits.global: null for no global limit")
	v.rate("rate_limits.per_caller", c.RateLimits.PerCaller, "")
	for _, tool := range sortedKeys(c.RateLimits.PerTool) {
		p := joinKey("rate_limits.per_tool", tool)
		if !toolPatternRE.MatchString(tool) {
			v.bad(p, fmt.Sprintf("%q is not a tool name or pattern (A-Z a-z 0-9 _ . - and * ?)", tool))
		}
		r := c.RateLimits.PerTool[tool]
		v.rate(p, &r, patternInstead(c.RateLimits.PerTool, tool))
	}

	spelled := map[abi.TrustLevel]string{} // a level's key spelled otherwise than its name
	for _, level := range sortedKeys(c.Trust.Caps) {
		p := joinKey("trust.caps", level)
		v.level(p, level)
		v.caps(p, c.Trust.Caps[level])
		if l, err := abi.ParseTrustLevel(level); err == nil && level != l.String() {
			if o, dup := spelled[l]; dup {
				v.bad(p, fmt.Sprintf("%q and %q name the same trust level %s; give it once", o, level, l))
			} else if c.lines[joinKey("trust.caps", l.String())] != 0 {
				// The file gives the level's own spelling too (the
				// defaults' key would only be overridden by this one).
				v.bad(p, fmt.Sprintf("%q and %q name the same trust level %s; give it once", l.String(), level, l))
			}
			spelled[l] = level
		}
	}
	v.level("trust.unsigned", c.Trust.Unsigned)
	sameFolder := map[string]string{} // absolute folder → the first key naming it
	for _, folder := range sortedKeys(c.Trust.Folders) {
		p := joinKey("trust.folders", folder)
		if folder == "" {
			v.bad(p, "empty folder name")
			continue
		}
		v.level(p, c.Trust.Folders[folder])
		abs := absClean(folder)
		if o, dup := sameFolder[abs]; dup && c.Trust.Folders[o] != c.Trust.Folders[folder] {
			v.bad(p, fmt.Sprintf("%q (%s) and %q (%s) name the same folder %s with different levels; give it once", o, c.Trust.Folders[o], folder, c.Trust.Folders[folder], abs))
		} else if !dup {
			sameFolder[abs] = folder
		}
	}

	for _, id := range sortedKeys(c.Providers) {
		p := joinKey("providers", id)
		if err := abi.ValidateProviderID(id); err != nil {
			v.bad(p, err.Error())
		}
		po := c.Providers[id]
		if po.Trust != "" {
			v.level(p+".trust", po.Trust)
		}
		if po.Source != "" && po.Trust == "" {
			v.bad(p+".source", "binds providers."+id+".trust to a source, but trust is not set; set trust too, or leave source out")
		}
		if po.Grants == nil && c.nullLists[p+".grants"] {
			// Decoded as no list: no narrowing, the opposite of [].
			v.bad(p+".grants", "empty (null), which would narrow nothing: give [] for the provider to hold nothing, list what it may hold, or leave grants out to narrow nothing")
		}
		v.caps(p+".grants", po.Grants)
		v.rate(p+".rate", po.Rate, "")
	}

	inf := c.Inference
	if inf.URL != "" {
		u, err := url.Parse(inf.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			shown := inf.URL
			if err == nil {
				shown = u.Redacted() // not its password
			} else if i := strings.LastIndexByte(shown, '@'); i >= 0 {
				shown = "…" + shown[i:]
			}
			v.bad("inference.url", fmt.Sprintf("%q is not an http(s) URL", shown))
		} else if strings.ContainsFunc(inf.URL, unicode.IsSpace) {
			// A space pasted at the end of a quoted url went into its
			// path: POST /v1 /v1/chat/completions, answered 404.
			v.bad("inference.url", fmt.Sprintf("%q holds white space, which no URL does (a space at its end?)", u.Redacted()))
		} else if n, err := strconv.Atoi(u.Port()); u.Port() != "" && (err != nil || n < 1 || n > 65535) {
			// Taken, it failed at the first completion.
			v.bad("inference.url", fmt.Sprintf("%q: port %s is not a number from 1 to 65535", u.Redacted(), u.Port()))
		}
	}
	if e := inf.APIKeyEnv; e != "" && !validEnvName(e) {
		// Not quoted: a value that is no variable name is most likely
		// the key itself, pasted in, which this error must not spread.
		why := "is not the name of an environment variable (letters, digits and _, not starting with a digit): give the name of the variable that holds the key, not the key itself (the value is not shown here, as it may be the key)"
		if n := strings.Trim(e, "${}"); e[0] == '$' && validEnvName(n) {
			why = fmt.Sprintf("is a shell's reference to the variable, which the host does not expand: write its name, %s, without the $", n)
		}
		v.bad("inference.api_key_env", why)
	}
	if h := inf.APIKeyHeader; h != "" && !validHeaderName(h) {
		v.bad("inference.api_key_header", fmt.Sprintf("%q is not an HTTP header name (letters, digits and !#$%%&'*+-.^_`|~ only)", h))
	} else if isHopHeader(h) {
		v.bad("inference.api_key_header", fmt.Sprintf("%q is a header the HTTP client sets itself; name the one the backend reads the key from (e.g. api-key)", h))
	} else if l := strings.ToLower(h); l != "authorization" && editdist.Levenshtein(l, "authorization", 2) <= 2 {
		// Authorisation, Authorizaton: the key went, whole, in a header
		// no backend reads, and the backend answered 401.
		v.bad("inference.api_key_header", fmt.Sprintf("%q is no header a backend reads the key from; did you mean Authorization (the default: leave api_key_header out for \"Authorization: Bearer KEY\")?", h))
	}
	v.positiveDur("inference.timeout", inf.Timeout)
	v.rate("inference.rate", inf.Rate, "")
	if inf.MaxConcurrent < 0 {
		v.bad("inference.max_concurrent", fmt.Sprintf("%d is negative (leave it out, or 0, for the default %d)", inf.MaxConcurrent, DefaultInferenceConcurrency))
	}
	switch c.Registry.SemverCheck {
	case SemverWarn, SemverRefuse, SemverOff:
	default:
		v.bad("registry.semver_check", fmt.Sprintf("%q is not warn, refuse or off", c.Registry.SemverCheck))
	}

	for _, name := range sortedKeys(c.Runtimes) {
		if !slices.Contains(KnownRuntimes, name) {
			v.bad(joinKey("runtimes", name), fmt.Sprintf("unknown runtime %q%s (known runtimes: %s)", name, suggestRuntime(name), strings.Join(KnownRuntimes, ", ")))
		}
	}
	v.discoveryKeys()
	return v.errs.err()
}

// suggestMethod returns `; did you mean "aios/registry.refresh"?` for a
// name within three edits of a JSON-RPC method, else "".
func suggestMethod(name string) string {
	best, bestDist := "", 4
	for _, m := range AgentMethods {
		if d := editdist.Levenshtein(name, m, bestDist); d < bestDist {
			best, bestDist = m, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// runtimeNicknames are other names people give the known runtimes.
var runtimeNicknames = map[string]string{
	"javascript": "js", "typescript": "js", "ts": "js", "node": "js", "nodejs": "js",
	"py": "python", "python3": "python", "cpython": "python",
	"wasi": "wasm", "webassembly": "wasm", "component": "wasm", "components": "wasm",
}

// suggestRuntime returns `, did you mean "js"?` for a name within two edits
// of a known runtime or of one of its nicknames ("javscript"), else "".
func suggestRuntime(name string) string {
	lower := strings.ToLower(name)
	best, bestDist := "", 3
	try := func(candidate, runtime string) {
		if d := editdist.Levenshtein(lower, candidate, bestDist); d < bestDist {
			best, bestDist = runtime, d
		}
	}
	for _, r := range KnownRuntimes {
		try(r, r)
	}
	for _, nick := range sortedKeys(runtimeNicknames) {
		try(nick, runtimeNicknames[nick])
	}
	if best == "" || (bestDist > 0 && len(lower) <= bestDist) {
		return ""
	}
	return fmt.Sprintf(", did you mean %q?", best)
}

// discoveryKeys checks the shape of the entries of discovery.keys, which the
// discovery package decodes into trust.KeyConfig and trust.LoadKeyConfigs
// checks later, without the file's lines. The rules are those of
// trust.KeyConfig (keep them in step): trust is System, Verified or
// Community; not_before and expires are RFC 3339 times; exactly one of
// jwks, jwks_url and jwk is given. Anything not shaped as a list of
// mappings of scalars is left to the discovery package's strict decoding.
func (v *validator) discoveryKeys() {
	d, _ := resolveAlias(&v.c.Discovery)
	if d == nil || d.Kind != yaml.MappingNode {
		return
	}
	var keys *yaml.Node
	for i := 0; i+1 < len(d.Content); i += 2 {
		if name, _ := keyName(d.Content[i]); name == "keys" {
			keys, _ = resolveAlias(d.Content[i+1])
		}
	}
	if keys == nil || keys.Kind != yaml.SequenceNode {
		return
	}
	for i, e := range keys.Content {
		path := "discovery.keys[" + strconv.Itoa(i) + "]"
		line := e.Line
		if e, _ = resolveAlias(e); e == nil || e.Kind != yaml.MappingNode {
			continue
		}
		var trustSeen, unknown bool
		var sources []string
		for j := 0; j+1 < len(e.Content); j += 2 {
			name, _ := keyName(e.Content[j])
			if !slices.Contains(discoveryKeyFields, name) && !isMerge(e.Content[j]) {
				// A misspelt key ("jwsk") was reported as "give exactly
				// one of jwks, jwks_url or jwk", not by its name.
				unknown = true
				known := map[string]reflect.StructField{}
				for _, k := range discoveryKeyFields {
					known[k] = reflect.StructField{}
				}
				v.badAt(e.Content[j].Line, path+"."+name, fmt.Sprintf("unknown key %q%s (known keys: %s)", name, suggest(name, known), strings.Join(discoveryKeyFields, ", ")))
				continue
			}
			val, _ := resolveAlias(e.Content[j+1])
			if val == nil {
				continue
			}
			null := val.Kind == yaml.ScalarNode && val.ShortTag() == "!!null"
			scalar := val.Kind == yaml.ScalarNode && !null
			p := path + "." + name
			switch name {
			case "trust":
				trustSeen = true
				if !scalar {
					continue
				}
				if l, err := abi.ParseTrustLevel(val.Value); err != nil {
					v.badAt(val.Line, p, err.Error())
				} else if l == abi.Untrusted {
					v.badAt(val.Line, p, "must be System, Verified or Community (an Untrusted key proves nothing)")
				}
			case "not_before", "expires":
				if !scalar {
					continue
				}
				if _, err := time.Parse(time.RFC3339, val.Value); err != nil {
					v.badAt(val.Line, p, fmt.Sprintf("%q is not an RFC 3339 time such as 2027-12-31T00:00:00Z", val.Value))
				}
			case "jwks", "jwks_url":
				if scalar && val.Value != "" {
					sources = append(sources, name)
				}
			case "jwk":
				if !null {
					sources = append(sources, name)
				}
			}
		}
		if unknown {
			continue // what is missing may be what was misspelt
		}
		if !trustSeen {
			v.badAt(line, path, "no trust: give trust: System, Verified or Community")
		}
		if len(sources) != 1 {
			msg := "give exactly one of jwks (file), jwks_url or jwk (inline)"
			if len(sources) > 1 {
				msg += ", not " + strings.Join(sources, " and ")
			}
			v.badAt(line, path, msg)
		}
	}
}

// discoveryKeyFields are the keys of a discovery.keys entry: the yaml
// names of trust.KeyConfig's fields (TestDiscoveryKeyFields keeps
// them in step), sorted.
var discoveryKeyFields = []string{"expires", "jwk", "jwks", "jwks_url", "kid", "not_before", "trust"}

type validator struct {
	c    *Config
	errs errList
}

func (v *validator) bad(path, msg string) {
	file := v.c.File
	if file == "" {
		file = "config"
	}
	v.errs.add(&Error{File: file, Line: v.c.lineOf(path), Path: path, Msg: msg})
}

// badAt reports a problem at a known line.
func (v *validator) badAt(line int, path, msg string) {
	file := v.c.File
	if file == "" {
		file = "config"
	}
	v.errs.add(&Error{File: file, Line: line, Path: path, Msg: msg})
}

// pathSetting refuses a path setting p that PathProblem finds wrong.
func (v *validator) pathSetting(path, p string) {
	if msg := PathProblem(p); msg != "" {
		v.bad(path, msg)
	}
}

// PathProblem says what is wrong with a path setting p (after ExpandHome),
// "" when nothing is: one that starts with "~name" for a name no account
// has (ExpandHome left it as it was) would be a folder named "~name" in
// the working directory, made without a word; so would one naming an
// environment variable ($HOME/aios), which the configuration does not
// expand (TestPathEnvVariableRefused). Every section's path settings ask
// it (server.socket, discovery.dirs, runtimes.wasm.cache_dir, …:
// TestSectionPathEnvVariableRefused); the message starts with p quoted.
func PathProblem(p string) string {
	if name := tildeUser(p); name != "" {
		return fmt.Sprintf("%q: no account is named %s, whose home folder ~%s would be (write the folder's path; \"~/\" is your own home folder)", p, name, name)
	}
	if ref := EnvReference(p); ref != "" {
		return fmt.Sprintf("%q: the configuration expands no environment variables, so %s would be a folder of that name (write the folder's path; \"~/\" is your own home folder)", p, ref)
	}
	return ""
}

// envRefRE matches what a shell ($NAME, ${NAME}) or Windows (%NAME%)
// would read as an environment variable.
var envRefRE = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_()]*%`)

// EnvReference returns the first environment variable p names as a shell
// or Windows would expand it ("$HOME", "${XDG_DATA_HOME}", "%APPDATA%"),
// or "". The configuration expands none: such a path is a folder with that
// name.
func EnvReference(p string) string {
	return envRefRE.FindString(p)
}

func (v *validator) positive(path string, n int) {
	if n <= 0 {
		v.bad(path, fmt.Sprintf("must be positive, got %d", n))
	}
}

func (v *validator) positiveDur(path string, d time.Duration) {
	if d <= 0 {
		v.bad(path, fmt.Sprintf("must be a positive duration such as 30s, got %s", d))
	}
}

func (v *validator) caps(path string, caps []string) {
	for i, s := range caps {
		c, err := abi.ParseCapability(s)
		if err != nil {
			v.bad(path+"["+strconv.Itoa(i)+"]", err.Error())
			continue
		}
		if msg := UnmatchableArg(c); msg != "" {
			v.bad(path+"["+strconv.Itoa(i)+"]", fmt.Sprintf("capability %q: %s, so it grants nothing", strings.TrimSpace(s), msg))
		}
	}
}

// UnmatchableArg says why c's pattern can match no tool name (CallTool),
// space name (ReadSpace, WriteSpace) or host (Network): a character neither a name nor a
// wildcard can be, such as a version (CallTool(echo@^1): grants name
// tools, not versions), a capital in a space name or a look-alike letter.
// "" when it can match. The host asks it of a provider's requests too
// (they are warned of, not refused).
func UnmatchableArg(c abi.Capability) string {
	var valid func(name string) bool // the name rule of what the pattern names
	var what, rule string
	switch c.Kind {
	case abi.CapCallTool:
		what, rule = "tool name", "A-Z a-z 0-9 _ - ."
		valid = func(n string) bool { return abi.ValidateToolName(n) == nil }
	case abi.CapReadSpace, abi.CapWriteSpace:
		what, rule = "space name", "a-z 0-9 _ . -"
		valid = func(n string) bool { return space.ValidateSpaceName(n) == nil }
	case abi.CapNetwork:
		// Matched against abi.NetworkHost's form: a DNS name or an IP
		// address, never a port, a scheme or a path (any port is allowed).
		what, rule = "host name", "a-z 0-9 _ . -, an IP address"
		valid = func(n string) bool {
			_, err := abi.NetworkHost(n)
			return err == nil || strings.Trim(n, "a0123456789abcdef:.") == ""
		}
	default:
		return ""
	}
	for _, r := range c.Arg {
		// A character a name may hold between two others ("a.a": a name
		// may not end with a dot).
		if r != '*' && r != '?' && !valid("a"+string(r)+"a") {
			return fmt.Sprintf("%q is in no %s (%s, and the wildcards * and ?)", r, what, rule)
		}
	}
	if (c.Kind == abi.CapReadSpace || c.Kind == abi.CapWriteSpace) && !strings.ContainsAny(c.Arg, "*?") {
		// Characters a name may hold, in an order or at a place no name
		// may ("docs.", "aux", "-x", "a..b").
		if err := space.ValidateSpaceName(c.Arg); err != nil {
			return "no space can be named so (" + strings.TrimPrefix(err.Error(), space.ErrInvalid.Error()+": ") + ")"
		}
	}
	if c.Kind == abi.CapReadSpace || c.Kind == abi.CapWriteSpace {
		// The same with wildcards: ReadSpace(.cache*) and ReadSpace(*.)
		// were taken, and matched no name.
		if why := spacePatternUnmatchable(c.Arg); why != "" {
			return why
		}
	}
	if c.Kind == abi.CapNetwork && strings.ContainsAny(c.Arg, "*?") && strings.ContainsAny(c.Arg, "0123456789") && strings.Trim(c.Arg, "0123456789.*?") == "" {
		if why := ipv4PatternUnmatchable(c.Arg); why != "" {
			return why
		}
	}
	if c.Kind == abi.CapNetwork && strings.Contains(c.Arg, ":") {
		// An IPv6 address (pattern) holds only hex digits and colons, its
		// dotted IPv4 tail after the last colon; anything else is
		// host:port.
		if strings.Trim(c.Arg, "0123456789abcdef:.*?") != "" || strings.Contains(c.Arg, ".") && strings.LastIndexByte(c.Arg, ':') > strings.IndexByte(c.Arg, '.') {
			return "a port is in no host name (Network(host) allows every port of the host; name the host alone, e.g. Network(api.example.com))"
		}
		if why := ipv6PatternUnmatchable(c.Arg); why != "" {
			return why
		}
	}
	return ""
}

// spacePatternUnmatchable says why the space name pattern p, holding
// wildcards and only characters a name may hold, can match no space
// name, or "". It looks for a name: '?' as a letter or a digit, '*' as
// nothing, a letter or a digit, which is all a name needs of them (a
// letter where a name may not start with '.', end with it, or hold "..";
// a digit where a letter made a Windows device name, "?ux"). A pattern of
// more wildcards than are tried so is not judged.
func spacePatternUnmatchable(p string) string {
	if !strings.ContainsAny(p, "*?") || strings.Count(p, "*")+strings.Count(p, "?") > 8 {
		return ""
	}
	var try func(done, rest string) bool
	try = func(done, rest string) bool {
		i := strings.IndexAny(rest, "*?")
		if i < 0 {
			return space.ValidateSpaceName(done+rest) == nil
		}
		head := done + rest[:i]
		if len(head) > 64 {
			return false
		}
		subs := []string{"a", "0"}
		if rest[i] == '*' {
			subs = []string{"", "a", "0"}
		}
		for _, s := range subs {
			if try(head+s, rest[i+1:]) {
				return true
			}
		}
		return false
	}
	if try("", p) {
		return ""
	}
	const why = "no space name can match it ("
	switch lit := strings.ReplaceAll(p, "*", ""); {
	case p[0] != '*' && p[0] != '?' && !(p[0] >= 'a' && p[0] <= 'z' || p[0] >= '0' && p[0] <= '9'):
		return why + "a space name starts with a letter or digit)"
	case strings.HasSuffix(p, "."):
		return why + "a space name never ends with \".\")"
	case strings.Contains(p, ".."):
		return why + "a space name never contains \"..\")"
	case len(lit) > 64:
		return why + "it matches only names longer than 64 characters)"
	}
	return why + "each name it matches is a Windows device name, con, prn, aux, nul, com0-9 or lpt0-9, with or without an extension)"
}

// ipv4PatternUnmatchable says why an IPv4 address pattern p (digits,
// dots and wildcards: such a pattern matches addresses only; without a
// wildcard the text is a host name) can match no address, or "".
// Addresses are matched in canonical form: four numbers
// from 0 to 255 without leading zeros, so Network(192.168.001.*) and
// Network(10.0.0.1.*) were taken and allowed nothing. A number next to a
// wildcard may be part of a longer one and is not judged.
func ipv4PatternUnmatchable(p string) string {
	const canonical = "an IPv4 address is matched in canonical form, four numbers from 0 to 255 without leading zeros"
	groups := strings.Split(p, ".")
	if len(groups) > 4 {
		return canonical + ": the pattern holds " + strconv.Itoa(len(groups)-1) + " dots"
	}
	for _, g := range groups {
		if g == "" || strings.ContainsAny(g, "*?") {
			continue
		}
		if n, err := strconv.Atoi(g); err != nil || n > 255 {
			return canonical + ": " + strconv.Quote(g) + " is over 255"
		} else if len(g) > 1 && g[0] == '0' {
			return canonical + ": write " + strconv.Quote(strconv.Itoa(n)) + " for " + strconv.Quote(g)
		}
	}
	return ""
}

// ipv6PatternUnmatchable says why an IPv6 pattern p (one with wildcards:
// an address alone is put in canonical form when parsed) can match no
// host, or "". Hosts are matched in canonical form (abi.NetworkHost): an
// IPv6 address in hex groups without leading zeros (RFC 5952) and never
// with a dotted tail, an IPv4-mapped one as its IPv4 address. So
// Network(::ffff:10.0.0.*) and Network(2001:0db8::*) were taken, and
// allowed nothing.
func ipv6PatternUnmatchable(p string) string {
	if strings.Contains(p, ".") {
		// A host with a colon (an IPv6 address) has no dot.
		if v4 := p[strings.LastIndexByte(p, ':')+1:]; strings.HasPrefix(p, "::ffff:") && strings.Trim(v4, "0123456789.*?") == "" {
			return "an IPv4-mapped address is matched as its IPv4 address: write Network(" + v4 + ")"
		}
		return "an IPv6 address is matched in hex groups (Network(64:ff9b::a00:1), not 64:ff9b::10.0.0.1), so a pattern holding both ':' and '.' matches no host"
	}
	for _, g := range strings.Split(p, ":") {
		if strings.ContainsAny(g, "*?") {
			continue
		}
		const canonical = "an IPv6 address is matched in canonical form, whose groups have at most 4 hex digits and no leading zero (RFC 5952)"
		if len(g) > 4 {
			return canonical + ": the group " + strconv.Quote(g) + " has " + strconv.Itoa(len(g))
		}
		if len(g) > 1 && g[0] == '0' {
			t := strings.TrimLeft(g, "0")
			if t == "" {
				t = "0"
			}
			return canonical + ": write " + strconv.Quote(t) + " for the group " + strconv.Quote(g)
		}
	}
	return ""
}

// rate checks the rate at path; none says how to have no limit there
// ("": leave the rate out), which a refusal of a rate of 0 tells.
func (v *validator) rate(path string, r *Rate, none string) {
	if r == nil {
		return
	}
	if none == "" {
		none = "leave the rate out for no limit"
	}
	switch {
	case math.IsNaN(r.PerSecond) || math.IsInf(r.PerSecond, 0):
		// NaN passed the test below and made a limiter that admits one
		// call and then none for years.
		v.bad(path+".per_second", fmt.Sprintf("must be a finite number, got %v (%s)", r.PerSecond, none))
	case r.PerSecond <= 0:
		v.bad(path+".per_second", fmt.Sprintf("must be positive, got %v (%s)", r.PerSecond, none))
	}
	if r.Burst < 0 {
		v.bad(path+".burst", fmt.Sprintf("must not be negative, got %d", r.Burst))
	}
}

func (v *validator) level(path, name string) {
	if _, err := abi.ParseTrustLevel(name); err != nil {
		v.bad(path, err.Error())
	}
}

// perCallerInstead is what a refused agents.<name>.rate tells of having
// no limit when rate_limits.per_caller is set: an agent that leaves its
// rate out has that one ("leave the rate out for no limit" sent an
// operator exempting an agent from per_caller to a config that held it
// to per_caller's rate). "" when per_caller is not set.
func perCallerInstead(perCaller *Rate) string {
	if perCaller == nil {
		return ""
	}
	return fmt.Sprintf("left out, the agent has rate_limits.per_caller's %v/s; no agent is exempt from it, but a per_second above what it will ever call is no limit", perCaller.PerSecond)
}

// patternInstead is what a refused rate_limits.per_tool entry for tool
// tells of having no limit when a pattern key of perTool matches tool:
// left out, the tool has that pattern's rate (the longest pattern's, as
// the host picks it). "" when none matches.
func patternInstead(perTool map[string]Rate, tool string) string {
	if strings.ContainsAny(tool, "*?") {
		return ""
	}
	best := ""
	for k := range perTool {
		if !strings.ContainsAny(k, "*?") || !abi.Glob(k, tool) {
			continue
		}
		if best == "" || len(k) > len(best) || len(k) == len(best) && k < best {
			best = k
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("left out, %s has the rate of %s, %v/s; a per_second above what it will ever be called is no limit", tool, joinKey("rate_limits.per_tool", best), perTool[best].PerSecond)
}

// BurstOf returns r's burst, defaulting to max(1, ceil(PerSecond)); a
// rate beyond the int range gives the largest int (a conversion would
// overflow to a negative number, and so to a bucket of one token).
func (r Rate) BurstOf() int {
	if r.Burst > 0 {
		return r.Burst
	}
	c := math.Ceil(r.PerSecond)
	if !(c < math.MaxInt) {
		return math.MaxInt
	}
	return max(int(c), 1)
}

// validHeaderName reports whether s is an HTTP field name (RFC 9110 §5.1:
// a token).
// validEnvName reports whether s is a POSIX environment variable name.
func validEnvName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return false
	}
	return s != ""
}

func validHeaderName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return s != ""
}

// isHopHeader reports whether name is a header Go's HTTP client writes or
// rewrites itself (framing and connection headers), which a key cannot go
// in.
func isHopHeader(name string) bool {
	switch strings.ToLower(name) {
	case "host", "content-length", "content-type", "transfer-encoding", "connection", "keep-alive", "te", "trailer", "upgrade", "proxy-connection", "accept":
		return true
	}
	return false
}
