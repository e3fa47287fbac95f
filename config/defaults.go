package config

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Default values. Limits are sized for one machine and refuse the obviously
// abusive; nothing is reachable from the network by default.
const (
	DefaultMaxParamsBytes  = 4 << 20
	DefaultMaxResultBytes  = 16 << 20
	DefaultMaxCallDepth    = 8
	DefaultDeadline        = 30 * time.Second
	DefaultMaxDeadline     = 10 * time.Minute
	DefaultMaxObjectBytes  = 256 << 20
	DefaultMinFreeBytes    = 64 << 20
	DefaultMaxTools        = 10_000
	DefaultMaxPluginBytes  = 256 << 20
	DefaultMaxDecodeBytes  = 512 << 20
	DefaultAgentName       = "cli"
	DefaultInferenceTimout = 60 * time.Second
)

// ModulePath is the Go module of this repository; used to find the bundled
// sample plugins from a checkout.
const ModulePath = "github.com/aios-host/aios-host"

// DefaultTrustCaps is the default trust policy: what a provider of each level
// may hold at most.
//
//   - Untrusted (unsigned plugins, MCP servers): CallTool(*) only. It can call
//     other tools (with its caller's grants intersected) but not touch
//     spaces, the network or inference on its own.
//   - Community (plugins from a folder the user trusts, e.g. the bundled
//     samples): spaces, inference and tool calls; no network.
//   - Verified (signed by a trusted key): adds Network(*), and Clock and
//     Random (a WASM guest's real clocks and randomness, docs/abi.md §6).
//   - System (compiled into the host): everything the host knows of.
//
// Every host call is also checked against the calling agent's grants, so a
// high cap never lets a provider do what its caller could not.
func DefaultTrustCaps() map[string][]string {
	all := []string{"ReadSpace(*)", "WriteSpace(*)", "Network(*)", "Inference", "CallTool(*)", "Clock", "Random"}
	return map[string][]string{
		"System":    all,
		"Verified":  append([]string(nil), all...),
		"Community": {"ReadSpace(*)", "WriteSpace(*)", "Inference", "CallTool(*)"},
		"Untrusted": {"CallTool(*)"},
	}
}

// Default returns the safe default configuration:
//
//   - plugins: the bundled samples/plugins folder when it can be found next
//     to the executable or above the working directory (a checkout), with
//     trust Community; otherwise none;
//   - data: $AIOS_DATA, else $XDG_STATE_HOME/aios-host, else
//     ~/.local/state/aios-host;
//   - limits: params 4 MiB, result 16 MiB, call depth 8, deadline 30s
//     (callers may ask for up to 10m), objects 256 MiB;
//   - agents: "cli", the default agent of the command line, with
//     ReadSpace(*), WriteSpace(*), CallTool(*) and Inference;
//   - rate limits: only a generous global limit (10000/s, burst 20000);
//   - trust: DefaultTrustCaps, unsigned providers Untrusted;
//   - audit on, fsync every 200ms or 4096 records, crash tails repaired;
//   - inference off (no URL).
func Default() *Config {
	c := &Config{
		Data:         DefaultDataDir(),
		DefaultAgent: DefaultAgentName,
		Audit: AuditConfig{
			SyncInterval: 200 * time.Millisecond,
			SyncEvery:    4096,
			MaxBytes:     256 << 20,
			Buffer:       8192,
			RepairTail:   true,
		},
		Limits: Limits{
			MaxParamsBytes:      DefaultMaxParamsBytes,
			MaxResultBytes:      DefaultMaxResultBytes,
			MaxCallDepth:        DefaultMaxCallDepth,
			DefaultDeadline:     DefaultDeadline,
			MaxDeadline:         DefaultMaxDeadline,
			MaxObjectBytes:      DefaultMaxObjectBytes,
			MinFreeBytes:        DefaultMinFreeBytes,
			MaxToolsPerProvider: DefaultMaxTools,
			MaxPluginBytes:      DefaultMaxPluginBytes,
			MaxDecodeBytes:      DefaultMaxDecodeBytes,
		},
		Agents: map[string]Agent{
			DefaultAgentName: {Grants: []string{"ReadSpace(*)", "WriteSpace(*)", "CallTool(*)", "Inference"}},
		},
		RateLimits: RateLimits{
			Global: &Rate{PerSecond: 10000, Burst: 20000},
		},
		Trust: TrustPolicy{
			Caps:     DefaultTrustCaps(),
			Unsigned: "Untrusted",
			Folders:  map[string]string{},
		},
		Providers: map[string]ProviderOverride{},
		Inference: Inference{
			APIKeyEnv: "AIOS_INFERENCE_API_KEY",
			Timeout:   DefaultInferenceTimout,
			// MaxConcurrent: DefaultInferenceConcurrency when 0 (host).
		},
		Registry: RegistryConfig{SemverCheck: SemverWarn},
		Runtimes: map[string]yaml.Node{},
		lines:    map[string]int{},
		shared:   map[string]bool{},
	}
	if dir := BundledPlugins(); dir != "" {
		c.Plugins = []string{dir}
		c.Trust.Folders[dir] = "Community"
	}
	return c
}

// DefaultDataDir returns $AIOS_DATA, else $XDG_STATE_HOME/aios-host (when
// it is an absolute path), else ~/.local/state/aios-host (the home folder
// from the account database when HOME is not set; ./.aios-host when there
// is no home at all).
func DefaultDataDir() string {
	if d := os.Getenv("AIOS_DATA"); d != "" {
		// A "~/" that no shell expanded (a systemd Environment=, a
		// quoted value) is the home folder, not a folder named "~".
		return ExpandHome(d)
	}
	// A relative XDG_STATE_HOME is invalid and ignored (XDG Base
	// Directory spec): taken, it made the state directory depend on the
	// working directory, so a `call` or `space put` run from another
	// folder used other spaces and another audit log (and "~/…", which
	// no shell expands in a systemd Environment=, a folder named "~").
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "aios-host")
	}
	if home := HomeDir(); home != "" {
		return filepath.Join(home, ".local", "state", "aios-host")
	}
	return ".aios-host"
}

// BundledPlugins finds the samples/plugins folder of an aios-host checkout:
// first beside the executable (bin/aios-host → ../samples/plugins), then
// above the working directory (the folder holding this module's go.mod).
// It returns "" when there is none.
func BundledPlugins() string {
	candidates := []string{BesideExecutable()}
	if root := RepoRoot(); root != "" {
		candidates = append(candidates, filepath.Join(root, "samples", "plugins"))
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return filepath.Clean(c)
		}
	}
	return ""
}

// BesideExecutable is where BundledPlugins looks first: the samples/plugins
// folder beside the executable's folder (bin/aios-host →
// samples/plugins), as an absolute, clean path; "" when the executable
// cannot be found.
func BesideExecutable() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return filepath.Join(filepath.Dir(filepath.Dir(exe)), "samples", "plugins")
}

// RepoRoot walks up from the working directory to the folder whose go.mod
// declares this module; "" when there is none.
func RepoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if isThisModule(filepath.Join(dir, "go.mod")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func isThisModule(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "module ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "module ")) == ModulePath
		}
	}
	return false
}
