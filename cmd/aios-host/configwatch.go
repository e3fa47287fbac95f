package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/internal/fsperm"
	"github.com/aios-host/aios-host/mcpserver"
	"github.com/aios-host/aios-host/runtimes/js"
	mcpbridge "github.com/aios-host/aios-host/runtimes/mcp"
	"github.com/aios-host/aios-host/runtimes/python"
	"github.com/aios-host/aios-host/runtimes/wasm"
	"github.com/aios-host/aios-host/server"
	"github.com/aios-host/aios-host/trust"
	"gopkg.in/yaml.v3"
)

// configPollInterval is how often `run` looks at its --config file.
var configPollInterval = 2 * time.Second

// watchConfigFile logs, until ctx ends, each change of the content of the
// configuration file at path, which `run` read at start only: a change
// takes effect at the next start, and the log says so, or, when the file
// would no longer load, why (its file, line and key), as a restart would
// then fail. Polled, so that a file written in place, renamed over (as
// editors save), removed or created again is seen alike; a change of its
// times or mode only (touch) is none. A file that is no regular file at
// start (a pipe: --config <(…)) is not watched. started is the file as
// run read it at start (configAtStart; nil: read here): an edit made since,
// while the plugins loaded, is a change too. flags are run's that
// replace keys of the file.
func watchConfigFile(ctx context.Context, path string, flags runFlags, started []byte, log *slog.Logger) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return // a pipe (--config <(…)): read once, nothing to look at again
	}
	if started == nil {
		started, _ = readConfigFile(path)
	}
	// The file as the host read it: an edit undone is no change to apply.
	// Its content is compared at the first tick (no stat yet to compare).
	var lastStat os.FileInfo
	last := started
	gone := false
	t := time.NewTicker(configPollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		st, err := os.Stat(path)
		if err == nil && !st.Mode().IsRegular() {
			err = fmt.Errorf("%s is not a regular file", path)
		}
		if err != nil {
			if !gone {
				gone = true
				log.Warn("the configuration file is gone: the running host keeps the configuration it started with, and a restart would fail", "file", path, "err", err)
			}
			lastStat = nil
			continue
		}
		if lastStat != nil && os.SameFile(st, lastStat) && st.Size() == lastStat.Size() && st.ModTime().Equal(lastStat.ModTime()) {
			continue
		}
		data, err := readConfigNow(path)
		if err != nil {
			// Not readable now: looked at again at the next tick (its
			// stat not noted, or a chmod that makes it readable, which
			// changes neither size nor time, would go unseen).
			continue
		}
		lastStat = st
		wasGone := gone
		gone = false
		if bytes.Equal(data, last) {
			if wasGone {
				log.Info("the configuration file is back as the running host read it", "file", path)
			}
			continue
		}
		last = data
		if err := checkConfig(path, flags); err != nil {
			log.Error("the configuration file was edited and now does not load: the running host keeps the configuration it started with, and a restart would fail", "file", path, "err", err)
			continue
		}
		if bytes.Equal(data, started) {
			log.Info("the configuration file is back as the running host read it", "file", path)
			continue
		}
		if sameSettings(data, started) {
			// A comment or the layout changed: nothing for a restart to
			// apply (it was said to be a change to restart for).
			log.Info("the configuration file was edited, its settings the ones the running host read (comments or layout only): nothing to apply", "file", path)
			continue
		}
		if changed := flags.replacedKeys(); len(changed) > 0 && sameSettings(data, started, changed...) {
			// Only keys a flag of run replaces changed (data with
			// --data): a restart with the same command line applies
			// nothing (it was said to be a change to restart for).
			log.Info("the configuration file was edited only in keys the command line replaces: nothing for a restart with the same flags to apply", "file", path, "keys", changedKeys(data, started, changed))
			continue
		}
		log.Warn("the configuration file changed: the running host keeps the configuration it started with; restart it to apply the change", "file", path)
	}
}

// sameSettings says whether two texts of the config file give the same
// settings: the same YAML values, whatever their comments, layout,
// quoting or anchors (both must parse), the keys without left out of
// both.
func sameSettings(a, b []byte, without ...flagKey) bool {
	var va, vb any
	if yaml.Unmarshal(a, &va) != nil || yaml.Unmarshal(b, &vb) != nil {
		return false
	}
	for _, k := range without {
		dropKey(va, k.path)
		dropKey(vb, k.path)
	}
	return reflect.DeepEqual(va, vb)
}

// changedKeys names those of keys whose values differ in the texts a and
// b, each with the flag that replaces it: "data (--data)".
func changedKeys(a, b []byte, keys []flagKey) string {
	var names []string
	for _, k := range keys {
		var others []flagKey
		for _, o := range keys {
			if o.String() != k.String() {
				others = append(others, o)
			}
		}
		if !sameSettings(a, b, others...) {
			names = append(names, k.String())
		}
	}
	return strings.Join(names, ", ")
}

// dropKey removes the key at path (a key of a mapping, of a mapping...)
// from v, a YAML document decoded into any.
func dropKey(v any, path []string) {
	for i, name := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if i == len(path)-1 {
			delete(m, name)
			return
		}
		v = m[name]
	}
}

// flagKey is a key of the config file that a flag of run replaces.
type flagKey struct {
	path []string // {"server", "socket"}
	flag string   // "--socket"
}

func (k flagKey) String() string { return strings.Join(k.path, ".") + " (" + k.flag + ")" }

// replacedKeys are the keys of the config file that the flags given
// replace: their values in the file are not the running host's, and a
// restart with the same flags would not take them either.
func (f runFlags) replacedKeys() []flagKey {
	var keys []flagKey
	if f.data != "" {
		keys = append(keys, flagKey{[]string{"data"}, "--data"})
	}
	if f.plugins {
		keys = append(keys, flagKey{[]string{"plugins"}, "--plugins"})
	}
	if f.socket {
		keys = append(keys, flagKey{[]string{"server", "socket"}, "--socket"})
	}
	if f.http {
		keys = append(keys, flagKey{[]string{"server", "http"}, "--http"})
	}
	if f.engine != "" {
		keys = append(keys, flagKey{[]string{"runtimes", "wasm", "engine"}, "--engine"})
	}
	if f.wire != "" {
		keys = append(keys, flagKey{[]string{"runtimes", "js", "wire"}, "--wire"}, flagKey{[]string{"runtimes", "python", "wire"}, "--wire"})
	}
	return keys
}

// readConfigNow reads the config file for watchConfigFile: readConfigFile
// (tests make it fail).
var readConfigNow = readConfigFile

// configAtStart is the content of the --config file path as run starts,
// before it loads it, for watchConfigFile; nil for no file or one that is
// not a regular file (a pipe is not read twice).
func configAtStart(path string) []byte {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	data, _ := readConfigFile(path)
	return data
}

// readConfigFile reads at most config.MaxFileBytes+1 bytes of path, a
// regular file (a FIFO put in its place is not waited on).
func readConfigFile(path string) ([]byte, error) {
	f, err := fsperm.OpenRegular(path) // without blocking on a FIFO
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, config.MaxFileBytes+1))
}

// checkConfigFile loads path as `run` would: the file, and the sections
// of the server, discovery (with its keys), mcp (the MCP server's and the
// bridge's) and the runtimes (decoded and
// checked, nothing started; the files they name, such as token files,
// are read), and audit.path and spaces (a folder where the log should
// be, or a file where the spaces should be, fails the restart).
func checkConfigFile(path string) error {
	return checkConfig(path, runFlags{})
}

// runFlags are the flags of run that replace keys of its config file.
type runFlags struct {
	data    string // --data ("": not given)
	plugins bool   // --plugins given
	socket  bool   // --socket given
	http    bool   // --http given
	engine  string // --engine ("": not given)
	wire    string // --wire ("": not given)
}

// checkConfig is checkConfigFile for a host run with flags, which
// replace the file's data and plugins: the file's data, a folder where
// the spaces and the log are made unless spaces or audit.path say
// otherwise, and its plugin folders are checked only when run takes them.
func checkConfig(path string, flags runFlags) error {
	cfg, err := config.Load(path)
	if err != nil {
		return err
	}
	// --engine and --wire replace keys of the runtime sections, as run
	// applies them (cli.config): what the file says there is not read.
	if flags.engine != "" {
		if err := setWasmEngine(cfg, flags.engine); err != nil {
			return err
		}
	}
	if flags.wire != "" {
		if err := setWire(cfg, flags.wire); err != nil {
			return err
		}
	}
	if err := checkSections(cfg, flags.http); err != nil {
		return errors.New(locateIn(cfg, err)) // with the file and line, as run says it
	}
	// server.socket as run probes it before it binds it: anything but a
	// socket there (a folder, a file) is not replaced, and the restart
	// fails. (A live socket is this host's own, or gone when it stops.)
	if sc, err := server.LoadConfig(cfg); err == nil && sc.Socket != "" && !flags.socket {
		if st, err := os.Lstat(sc.Socket); err == nil && st.Mode().Type() != os.ModeSocket {
			return fmt.Errorf("%s: server.socket: %s exists and is not a socket (%s): run does not replace it (remove it, or choose another socket path)", cfg.Where("server.socket"), sc.Socket, fsperm.Kind(st.Mode()))
		}
	}
	// Its plugin folders as discovery's Start takes them (as
	// discovery.dirs below): one that is a file is refused.
	if !flags.plugins {
		for i, p := range cfg.Plugins {
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				key := fmt.Sprintf("plugins[%d]", i)
				return fmt.Errorf("%s: %s: %s is a file, not a folder: give the folder that holds it", cfg.Where(key), key, p)
			}
		}
	}
	// audit.path and spaces as run opens them (set in the file: --data
	// leaves them where they say): a log that is a folder, a device, or
	// either beneath a file fails the restart.
	// data as well, when the file sets it and run takes it: a file there
	// (or above it) fails the restart, and so do the spaces and the log
	// it holds when spaces and audit.path leave them there.
	fileData := flags.data == "" && cfg.Line("data") > 0
	if fileData {
		if err := checkPathKind(cfg, "data", cfg.Data, true); err != nil {
			return err
		}
	}
	if !cfg.Audit.Disabled {
		key, p := "audit.path", cfg.Audit.Path
		if p == "" && fileData {
			key, p = "data", cfg.AuditPath()
		}
		if err := checkPathKind(cfg, key, p, false); err != nil {
			return err
		}
		// A file there that is no audit log (its end is not a record,
		// nor a crash's) is refused by run too.
		if p != "" {
			if err := audit.CheckTail(p); err != nil {
				return fmt.Errorf("%s:%d: %s: %w", cfg.File, cfg.Line(key), key, err)
			}
		}
	}
	key, p := "spaces", cfg.Spaces
	if p == "" && fileData {
		key, p = "data", cfg.SpacesDir()
	}
	return checkPathKind(cfg, key, p, true)
}

// checkPathKind says, with the file, line and key, why the path p that
// key sets (when it does) cannot be used: a file where a folder (dir)
// should be or the reverse, or a path beneath a file. One not there yet
// is made at start.
func checkPathKind(cfg *config.Config, key, p string, dir bool) error {
	if p == "" {
		return nil
	}
	st, err := os.Stat(p)
	switch {
	case err != nil:
	case dir && !st.IsDir():
		err = fmt.Errorf("%s is not a folder (%s)", p, fsperm.Kind(st.Mode()))
	case !dir && !st.Mode().IsRegular():
		err = fmt.Errorf("%s is not a regular file (%s): the audit log must be one", p, fsperm.Kind(st.Mode()))
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s:%d: %s: %w", cfg.File, cfg.Line(key), key, err)
	}
	return nil
}

// checkSections checks the sections of cfg its owners decode; httpFlag
// says run was given --http, which replaces server.http.
func checkSections(cfg *config.Config, httpFlag bool) error {
	if err := server.CheckAuth(cfg); err != nil {
		return err
	}
	// server.http as run checks it before binding it (cmd_serve.go),
	// unless --http replaces it.
	if sc, err := server.LoadConfig(cfg); err == nil && sc.HTTP != "" && !httpFlag {
		if err := checkListenAddr(sc.HTTP); err != nil {
			return fmt.Errorf("server.http: %s: %w", sc.HTTP, err)
		}
	}
	dc, err := discovery.LoadConfig(cfg)
	if err != nil {
		return err
	}
	// Its folders as discovery's Start takes them: one that is a file is
	// refused (one not there yet is watched for).
	for _, ds := range []struct {
		key  string
		dirs []string
	}{{"discovery.dirs", dc.Dirs}, {"discovery.desktop_dirs", dc.DesktopDirs}} {
		for i, p := range ds.dirs {
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return fmt.Errorf("%s[%d]: %s is a file, not a folder: give the folder that holds it", ds.key, i, p)
			}
		}
	}
	// Its keys as run loads them (their jwks files read; a jwks_url is not
	// fetched here): a key file that is not there fails the restart.
	base := ""
	if cfg.File != "" {
		base = filepath.Dir(cfg.File)
	}
	if _, err := trust.LoadKeyConfigs(dc.Keys, base, nil); err != nil {
		return fmt.Errorf("discovery.keys%w", err)
	}
	// The mcp section as run reads it: its agent (the default one added
	// first), tools_list and http, then the servers of the bridge.
	if err := mcpserver.AddDefaultAgent(cfg); err != nil {
		return err
	}
	if _, err := mcpserver.LoadConfig(cfg); err != nil {
		return err
	}
	if _, err := mcpbridge.LoadConfig(cfg); err != nil {
		return err
	}
	var wcfg wasm.Config
	if err := cfg.Decode(cfg.Runtimes["wasm"], "runtimes.wasm", &wcfg); err != nil {
		return err
	}
	if err := wcfg.Check(); err != nil {
		return err
	}
	var jsCfg js.Config
	if err := cfg.Decode(cfg.Runtimes["js"], "runtimes.js", &jsCfg); err != nil {
		return err
	}
	if err := jsCfg.Validate(); err != nil {
		return err
	}
	_, err = python.ConfigFrom(cfg)
	return err
}
