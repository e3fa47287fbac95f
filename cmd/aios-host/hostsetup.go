package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/component"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/mcpserver"
	"github.com/aios-host/aios-host/runtimes/js"
	mcpbridge "github.com/aios-host/aios-host/runtimes/mcp"
	"github.com/aios-host/aios-host/runtimes/python"
	"github.com/aios-host/aios-host/runtimes/wasm"
	"github.com/aios-host/aios-host/samples/native/complexity"
	"github.com/aios-host/aios-host/space"
)

// This file wires the host together: configuration, Space storage, the audit
// log, the loader table, the built-in native providers and the plugin
// folders. Runtime owners add their loader to loaderTable and, for
// compiled-in providers, to builtinProviders.

// loaderTable returns the loaders by which plugin files are loaded, one per
// runtime. The native runtime has no files: its providers are compiled in
// (builtinProviders).
func loaderTable(cfg *config.Config, log *slog.Logger) ([]abi.Loader, error) {
	var loaders []abi.Loader
	// Runtime owners: append your loader here, e.g.
	//   l, err := wasm.NewLoader(cfg, log); if err != nil { return nil, err }
	//   loaders = append(loaders, l)
	// .wasm: components go to the component runtime, core modules to the
	// wasm runtime's loader (pass it as Dispatch's first argument).
	// The component runtime's compile cache is bounded as the core
	// modules' is (wasm.MaxCacheBytes, pruned at start and, through
	// wasm.NoteCompiled, while the host runs): every version of a
	// component compiled while it is developed leaves its code there.
	wasm.PruneCache(componentCacheDir(cfg), wasm.MaxCacheBytes, log)
	comp, err := componentLoader(cfg, log) // runtimes.wasm.engine (engine.go)
	if err != nil {
		return nil, err
	}
	core, err := wasmCoreLoader(cfg, log) // section runtimes.wasm (runtimes/wasm)
	if err != nil {
		return []abi.Loader{comp}, err
	}
	loaders = append(loaders, component.Dispatch(core, comp))
	// .js and .ts: the JS/TS runtime (goja + esbuild), section runtimes.js.
	var jsCfg js.Config
	if err := cfg.Decode(cfg.Runtimes["js"], "runtimes.js", &jsCfg); err != nil {
		return loaders, err
	}
	if err := jsCfg.Validate(); err != nil {
		return loaders, err
	}
	loaders = append(loaders, js.New(jsCfg.ToOptions(log)).Loaders()...)
	// .py: sandboxed CPython workers, section runtimes.python.
	pyRT, err := python.NewFromConfig(cfg, log)
	if err != nil {
		return loaders, err
	}
	loaders = append(loaders, pyRT)
	_ = cfg
	_ = log
	return loaders, nil
}

// pluginExtensions lists the file extensions loaderTable's loaders take, for
// a command that only needs to recognise a plugin file (verify): building
// every runtime for that started Python workers' checks, pruned the compile
// cache, and a runtime that failed to start skipped the check without a
// word. TestPluginExtensionsMatchLoaders keeps the list in step with the
// loaders.
var pluginExtensions = []string{".wasm", ".js", ".mjs", ".ts", ".mts", ".py"}

// componentCacheDir is where the component runtime keeps compiled code
// ("" keeps it in memory).
func componentCacheDir(cfg *config.Config) string {
	if cfg.Data == "" {
		return ""
	}
	return filepath.Join(cfg.Data, "cache", "component")
}

// builtinProviders returns the providers compiled into the binary. They run
// at trust level System.
func builtinProviders() []abi.Provider {
	return []abi.Provider{
		complexity.New(), // analyze-complexity (samples/native/complexity)
	}
}

// hostOptions says what a command needs from the host.
type hostOptions struct {
	// audit opens the audit log (commands that call tools); without it
	// the Space store is opened for reading (space.ForReading).
	audit bool
	// discovery leaves the plugin folders to package discovery (run), which
	// also reads Adapter Cards and watches the folders.
	discovery bool
	// auditPath, when set, replaces the configured audit log's path (an
	// MCP session whose configured log another process holds).
	auditPath string
}

// config loads the configuration file (or the defaults) and applies the
// global flags over it.
func (c *cli) config() (*config.Config, error) {
	var cfg *config.Config
	if c.configFile != "" {
		var err error
		if cfg, err = config.Load(c.configFile); err != nil {
			return nil, err
		}
	} else {
		cfg = config.Default()
	}
	// "~/" is the home folder, as in the file: the shell leaves the "~"
	// of --data=~/x alone, and a folder named "~" was made.
	if c.data != "" {
		cfg.Data = config.ExpandHome(c.data)
	}
	if len(c.plugins) > 0 {
		cfg.Plugins = make([]string, len(c.plugins))
		for i, p := range c.plugins {
			cfg.Plugins[i] = config.ExpandHome(p)
		}
	}
	if c.engine != "" {
		if err := setWasmEngine(cfg, c.engine); err != nil {
			return nil, err
		}
	}
	if c.wire != "" {
		if err := setWire(cfg, c.wire); err != nil {
			return nil, err
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c.cfg = cfg
	return cfg, nil
}

// logger returns the logger for this invocation: text on stderr at the
// --log-level, or at def.
func (c *cli) logger(def slog.Level) (*slog.Logger, error) {
	level, err := parseLogLevel(c.logLevel, def)
	if err != nil {
		return nil, err
	}
	return slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: level})), nil
}

// openSpaces opens the Space store of cfg (with more options after its
// limits: space.ForReading for the commands that only read).
// A failure names the setting the folder came from (spaces, else data,
// else --data), with its line in the file.
func (c *cli) openSpaces(cfg *config.Config, more ...space.Option) (*space.Store, error) {
	st, err := space.Open(cfg.SpacesDir(), append([]space.Option{space.WithMaxObjectSize(cfg.Limits.MaxObjectBytes),
		space.WithMaxSpaceBytes(cfg.Limits.MaxSpaceBytes), space.WithMinFreeBytes(cfg.Limits.MinFreeBytes)}, more...)...)
	if err != nil {
		return nil, c.pathErr(cfg, cfg.Spaces, "spaces", err)
	}
	return st, nil
}

// pathErr puts in front of err, a failure to use a path of the
// configuration, the setting that path came from: key when the
// configuration sets it (val != ""), else --data or data (the folder it
// defaults to beneath), with the file and line that give it. "audit: open
// /x: is a directory" did not say that audit.path or data chose /x.
func (c *cli) pathErr(cfg *config.Config, val, key string, err error) error {
	if val == "" && cfg.Data != "" {
		if st, serr := os.Stat(cfg.Data); serr == nil && !st.IsDir() {
			// "stat F/spaces: not a directory" read as a missing
			// spaces folder.
			err = errors.New("is a file, not a folder (the host keeps its spaces, audit log and caches in it)")
		}
	}
	switch {
	case val != "":
	case c.data != "":
		return fmt.Errorf("--data %s: %w", c.data, err)
	default:
		key = "data"
	}
	if l := cfg.Line(key); l > 0 && cfg.File != "" {
		return fmt.Errorf("%s:%d: %s: %w", cfg.File, l, key, err)
	}
	return fmt.Errorf("%s: %w", key, err)
}

// newHost builds a host from the configuration: Space storage, the audit
// log (when opts.audit), the loader table, the built-in providers, then
// every file of every plugin folder. A file that fails to load is logged and
// skipped; the host still starts. The caller must Close the host, which
// also flushes the audit log.
func (c *cli) newHost(ctx context.Context, log *slog.Logger, opts hostOptions) (*host.Host, error) {
	cfg, err := c.config()
	if err != nil {
		return nil, err
	}
	if opts.auditPath != "" {
		cfg.Audit.Path = opts.auditPath
	}
	// The "mcp" agent of MCP clients (CallTool(*) only) unless configured (cmd_mcp.go).
	if err := mcpserver.AddDefaultAgent(cfg); err != nil {
		return nil, err
	}
	// The rest of the mcp section (tools_list, stdin_drain, http), which
	// the MCP server reads after loading, as well: a mistake there was
	// found after every plugin had loaded (TestRunMCPSectionCheckedFirst).
	if _, err := mcpserver.LoadConfig(cfg); err != nil {
		return nil, err
	}
	// mcp.servers is read before anything loads: a mistake there was
	// reported only after every plugin had loaded (and left the python
	// workers' control-group folders behind; TestNewHostFailureClosesAll).
	mcpServers, err := mcpbridge.LoadConfig(cfg)
	if err != nil {
		return nil, err
	}
	// The cards of discovery.dirs take their folder's level too.
	var cardDirs []string
	if dc, err := discovery.LoadConfig(cfg); err == nil {
		cardDirs = dc.Dirs
	}
	// No --plugins, no plugins: key, and no bundled folder found (a binary
	// outside the checkout): say why only the built-in tools load.
	if len(cfg.Plugins) == 0 && len(c.plugins) == 0 && cfg.Line("plugins") == 0 {
		// Named as absolute paths: "(../samples/plugins)" read as a path
		// from the working directory (TestNoBundledPluginsNamesWhereItLooked).
		wd, _ := os.Getwd()
		log.Warn(fmt.Sprintf("no plugin folder: the bundled samples/plugins folder is neither at ../samples/plugins from the executable's folder (%s) nor in an aios-host checkout at or above the working directory (%s), so only the built-in providers load; give --plugins DIR or plugins: in a config file", orText(config.BesideExecutable(), "?"), orText(wd, "?")))
	}
	for _, f := range cfg.UnmatchedTrustFolders(cardDirs...) {
		log.Warn("trust.folders names a folder that is neither a plugin folder nor one of discovery.dirs, so it gives no provider its level (relative paths are taken from the working directory)",
			"folder", f, "resolved", absPath(f), "plugin_folders", cfg.Plugins, "discovery_dirs", cardDirs)
	}
	var reading []space.Option
	if !opts.audit {
		// list and diff call no tool: nothing is written to the
		// store, which may be in a data folder they cannot write.
		reading = append(reading, space.ForReading())
	}
	spaces, err := c.openSpaces(cfg, reading...)
	if err != nil {
		return nil, err
	}
	var aw *audit.Writer
	if opts.audit && !cfg.Audit.Disabled {
		aw, err = audit.Open(cfg.AuditPath(), audit.Options{
			Buffer:       cfg.Audit.Buffer,
			SyncInterval: cfg.Audit.SyncInterval,
			SyncEvery:    cfg.Audit.SyncEvery,
			FlushDelay:   cfg.Audit.FlushDelay,
			RepairTail:   cfg.Audit.RepairTail,
			MaxBytes:     cfg.Audit.MaxBytes,
			MaxFiles:     cfg.Audit.MaxFiles,
			Logger:       log,
		})
		if err != nil {
			return nil, c.pathErr(cfg, cfg.Audit.Path, "audit.path", err)
		}
	}
	loaders, err := loaderTable(cfg, log)
	if err != nil {
		closeLoaders(loaders)
		_ = aw.Close()
		return nil, err
	}
	// The names of an MCP server's tools are its bridge provider's: a
	// plugin could otherwise take mcp-{server}-{tool} and the calls meant
	// for the server (host.TestMCPNamespaceReserved). A disabled server's
	// are not (the bridge does not leave them out of the others' either).
	namespaces := map[string]host.Namespace{}
	for name, sc := range mcpServers {
		if sc.Disabled {
			continue
		}
		// Source binds the id to the bridge (startMCPBridge's source):
		// a plugin declaring org.aios.mcp.{server} is refused.
		namespaces[mcpbridge.ToolName(name, "")] = host.Namespace{Provider: mcpbridge.ProviderID(name),
			Owner: fmt.Sprintf("MCP server %s (mcp.servers.%s)", name, name), Source: mcpSource(sc)}
	}
	h, err := host.New(host.Options{Config: cfg, Logger: log, Loaders: loaders, Spaces: spaces, Audit: aw, ToolNamespaces: namespaces})
	if err != nil {
		closeLoaders(loaders)
		_ = aw.Close()
		return nil, err
	}
	for _, p := range builtinProviders() {
		id := p.Describe().Provider.ID
		if cfg.Providers[id].Disabled {
			log.Info("provider disabled by config", "provider", id)
			h.NoteDisabled(id)
			_ = p.Close()
			continue
		}
		if err := h.AddProvider(ctx, p, host.ProviderMeta{Source: "builtin", Trust: abi.System}); err != nil {
			log.Error("built-in provider not added", "provider", id, "err", err)
			_ = p.Close()
		}
	}
	if !opts.discovery {
		// One scan, with the rules `run` applies (Adapter Cards, signatures,
		// tool.aios.yaml, priority by trust: an unsigned file cannot take a
		// trusted provider's id here either), and no watching.
		d, err := discovery.New(discovery.Options{Host: h, Config: cfg, Logger: log, Once: true})
		if err != nil {
			_ = closeHost(h, io.Discard)
			return nil, err
		}
		err = d.Start(ctx)
		_ = d.Close()
		if err != nil {
			_ = closeHost(h, io.Discard)
			return nil, err
		}
	}
	// MCP servers of mcp.servers become mcp-{server}-{tool} tools (cmd_mcp.go).
	if err := c.startMCPBridge(ctx, h, mcpServers, log); err != nil {
		_ = closeHost(h, io.Discard)
		return nil, err
	}
	return h, nil
}

// closeHost closes h and reports a close error on w.
func closeHost(h *host.Host, w io.Writer) error {
	err := h.Close()
	var ls []abi.Loader
	for _, f := range []string{"x.py", "x.js", "x.ts", "x.wasm"} {
		if l, ok := h.LoaderFor(f); ok {
			ls = append(ls, l)
		}
	}
	err = errors.Join(err, closeLoaders(ls))
	if err != nil {
		fmt.Fprintf(w, "aios-host: %v\n", err)
		return err
	}
	return nil
}

// closeLoaders closes the loaders of loaderTable, after their providers
// (closeHost) or when newHost fails before a host owns them:
//   - the python runtime: the workers were told to go; it waits for them
//     and removes their control-group folders (a clean exit leaves none);
//   - the JS runtime's bundler process and watchdog (the bundler stayed
//     until idle for 30 s: TestChaosEverythingAtOnce);
//   - the .wasm loaders (component.Dispatch's core-module and component
//     loaders): the wazero core loader's watchdog, runtimes and compile
//     cache, the wasmtime loaders' epoch tickers. Each Close refuses new
//     calls and waits for those still running (host.Close waits only for
//     the calls it did not abandon) before it releases anything.
func closeLoaders(ls []abi.Loader) error {
	var err error
	for _, l := range ls {
		if u, ok := l.(interface{ Unwrap() []abi.Loader }); ok {
			err = errors.Join(err, closeLoaders(u.Unwrap()))
			continue
		}
		switch c := l.(type) {
		case interface{ Close() error }:
			err = errors.Join(err, c.Close())
		case interface{ Close() }:
			c.Close()
		}
	}
	return err
}

// wasmCoreLoader is the loader of WebAssembly core modules (guest ABI v1,
// docs/abi.md), configured by the runtimes.wasm section.
func wasmCoreLoader(cfg *config.Config, log *slog.Logger) (abi.Loader, error) {
	var wcfg wasm.Config
	if err := cfg.Decode(cfg.Runtimes["wasm"], "runtimes.wasm", &wcfg); err != nil {
		return nil, err
	}
	return wasm.NewEngineLoader(wcfg.Engine, wasm.Options{Config: wcfg, DataDir: cfg.Data, Logger: log})
}

// wazeroComponentLoader returns the component runtime on wazero, which
// takes compile_timeout, memory_limit_pages, pool_size, clock, random and
// the providers entries' memory_limit_pages and pool_size from the core
// modules' section (runtimes.wasm).
func wazeroComponentLoader(cfg *config.Config, log *slog.Logger) (abi.Loader, error) {
	opts, err := wazeroComponentOptions(cfg, log)
	if err != nil {
		return nil, err
	}
	return component.NewLoader(opts), nil
}

// wazeroComponentOptions are the component runtime's options on wazero
// from the config (wazeroComponentLoader; inspect).
func wazeroComponentOptions(cfg *config.Config, log *slog.Logger) (component.Options, error) {
	var wcfg wasm.Config
	if err := cfg.Decode(cfg.Runtimes["wasm"], "runtimes.wasm", &wcfg); err != nil {
		return component.Options{}, err
	}
	if wcfg.MemoryLimitPages > 65536 {
		return component.Options{}, fmt.Errorf("runtimes.wasm.memory_limit_pages: %d is above 65536 (4 GiB)", wcfg.MemoryLimitPages)
	}
	return component.Options{Logger: log, CacheDir: componentCacheDir(cfg), CompileTimeout: wcfg.CompileTimeout, PoolSize: wcfg.PoolSize,
		LoadTimeout: wcfg.LoadTimeout, MemoryLimitPages: wcfg.MemoryLimitPages, RealClock: wcfg.Clock == "real", RealRandom: wcfg.Random == "real",
		ProviderLimits: wcfg.LimitsFor}, nil
}

// absPath is p made absolute (p itself when that fails), for messages.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
