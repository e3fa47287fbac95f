package python

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/internal/fsperm"
	pysdk "github.com/aios-host/aios-host/sdk/python"
)

// Runtime is the python runtime: the .py Loader plus what its workers
// share (the interpreter found at the first load, the SDK folder, the
// sandbox layers this machine offers). It is safe for concurrent use.
type Runtime struct {
	cfg Config
	log *slog.Logger

	// noMsgpack makes workers offer json only (tests).
	noMsgpack bool
	// noPIDNS starts workers without a PID namespace (tests).
	noPIDNS bool
	// stackWait is how long a call past its deadline waits for the
	// worker's stack (worker.stackLine; 0: defaultStackWait): tests on a
	// loaded machine lengthen it.
	stackWait time.Duration

	mu     sync.Mutex
	env    *interp // nil until the first successful probe
	layers Layers

	// live counts the workers started and not yet reaped (Close waits
	// for them).
	live atomic.Int64
}

// Close waits, at most 3 s, for the runtime's workers to be reaped (close
// its providers, e.g. by closing the host, first: that tells them to go)
// and then removes this process's control-group folders when no worker is
// left in them, so that a clean shutdown leaves none behind. A load after
// Close still works (the folders are made again).
func (r *Runtime) Close() {
	deadline := time.Now().Add(3 * time.Second)
	for r.live.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	removeHostFolders(deadline)
}

// interp is what the probe learnt about the interpreter.
type interp struct {
	exe     string   // real path of the interpreter binary
	version string   // "3.11.7"
	roots   []string // folders the interpreter reads (prefixes, sys.path)
	sysPath []string // sys.path of a normal start (with site-packages)
	sdkDir  string   // folder that holds aios_sdk/
	// msgpack is the folder of the msgpack package a worker imports
	// ("": none). msgpackOnPath says it imports with the interpreter's
	// normal sys.path; otherwise it is the system's package (Debian's
	// python3-msgpack) for an interpreter of the same ABI, imported from
	// that folder alone (see findMsgpack).
	msgpack       string
	msgpackOnPath bool
}

// New returns the runtime. Nothing is started until the first Load, so a
// machine without python3 only fails the loading of .py files.
func New(cfg Config, log *slog.Logger) (*Runtime, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Runtime{cfg: cfg, log: log.With("runtime", abi.RuntimePython)}, nil
}

// NewFromConfig builds the runtime from the runtimes.python section of cfg.
func NewFromConfig(cfg *config.Config, log *slog.Logger) (*Runtime, error) {
	c, err := ConfigFrom(cfg)
	if err != nil {
		return nil, err
	}
	return New(c, log)
}

// Runtime implements abi.Loader.
func (r *Runtime) Runtime() string { return abi.RuntimePython }

// Extensions implements abi.Loader.
func (r *Runtime) Extensions() []string { return []string{".py"} }

// Config returns the runtime's configuration.
func (r *Runtime) Config() Config { return r.cfg }

// Layers reports which sandbox layers workers get on this machine (valid
// after the first Load; Probe forces it).
func (r *Runtime) Layers() Layers {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.layers
}

// Probe finds the interpreter and the sandbox layers now (Load does it on
// first use). Errors say what is missing.
func (r *Runtime) Probe(ctx context.Context) error {
	_, err := r.interp(ctx)
	return err
}

func (r *Runtime) interp(ctx context.Context) (*interp, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.env != nil {
		return r.env, nil
	}
	ip, err := probeInterpreter(ctx, r.cfg.Interpreter)
	if err != nil {
		return nil, err
	}
	if r.cfg.SDKPath != "" {
		if _, err := os.Stat(filepath.Join(r.cfg.SDKPath, "aios_sdk", "__init__.py")); err != nil {
			return nil, fmt.Errorf("runtimes.python.sdk_path %s: no aios_sdk package there: %v", r.cfg.SDKPath, err)
		}
		ip.sdkDir = r.cfg.SDKPath
	} else if ip.sdkDir, err = extractSDK(); err != nil {
		return nil, err
	}
	if r.cfg.sandboxed() {
		r.layers = detectLayers()
		if r.noPIDNS {
			r.layers.PIDNS, r.layers.PIDNSErr = false, "turned off for a test"
		}
	} else {
		r.layers = Layers{Disabled: true}
	}
	r.layers.log(r.log)
	wireFormats := "json"
	if ip.msgpack != "" {
		wireFormats = "msgpack (" + ip.msgpack + "), json"
	}
	r.log.Info("python runtime ready", "interpreter", ip.exe, "version", ip.version, "sdk", ip.sdkDir,
		"wire_formats", wireFormats, "wire", r.cfg.Wire)
	r.env = ip
	return ip, nil
}

const probeScript = `import sys, os, json, importlib.machinery as m
mp = ""
try:
  import msgpack
  if msgpack.Packer.__module__ == "msgpack._cmsgpack":
    mp = os.path.dirname(os.path.realpath(msgpack.__file__))
except Exception:
  pass
json.dump({"exe": os.path.realpath(sys.executable), "version": "%d.%d.%d" % sys.version_info[:3],
  "major": sys.version_info[0], "minor": sys.version_info[1],
  "path": [p for p in sys.path if p],
  "roots": [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
            os.path.dirname(os.path.realpath(sys.executable))] + [p for p in sys.path if p],
  "msgpack": mp, "ext_suffixes": m.EXTENSION_SUFFIXES}, sys.stdout)`

// systemMsgpack is where Debian's python3-msgpack puts the package (the
// one scripts/deps.sh installs).
var systemMsgpack = "/usr/lib/python3/dist-packages/msgpack"

// findMsgpack returns the msgpack package folder a worker of an
// interpreter without msgpack on its sys.path may import: the system's,
// when its C extension carries one of the interpreter's extension suffixes
// (the same ABI, e.g. a pyenv CPython 3.11 and Debian's 3.11). A
// pure-Python msgpack is not used: it is slower than the json module.
func findMsgpack(suffixes []string) string {
	if _, err := os.Stat(filepath.Join(systemMsgpack, "__init__.py")); err != nil {
		return ""
	}
	for _, s := range suffixes {
		if s == ".so" || s == ".abi3.so" {
			continue
		}
		if _, err := os.Stat(filepath.Join(systemMsgpack, "_cmsgpack"+s)); err == nil {
			return systemMsgpack
		}
	}
	return ""
}

// probeTimeout bounds the interpreter's probe.
var probeTimeout = 20 * time.Second

// probeInterpreter runs the interpreter once, unsandboxed and with the
// host's environment (so shims such as pyenv's resolve), to learn the real
// binary and the folders it needs.
func probeInterpreter(ctx context.Context, name string) (*interp, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("python interpreter %q not found in PATH: install CPython 3.8+ or set runtimes.python.interpreter", name)
		}
		return nil, fmt.Errorf("python interpreter %q: %v", name, err)
	}
	load := ctx
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "-I", "-c", probeScript)
	// A wrapper (a shim, a script) killed at the context's end may leave a
	// child holding the output pipes: Run would wait for it, past the
	// cancellation and the timeout, for as long as it lives.
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		switch {
		case load.Err() != nil:
			// The load was cancelled (SIGTERM while loading, discovery
			// closing): not the interpreter's fault.
			return nil, fmt.Errorf("python interpreter %s: its probe was interrupted: %w", path, load.Err())
		case ctx.Err() != nil:
			return nil, fmt.Errorf("python interpreter %s did not answer its probe (a one-line script) within %v: is it a wrapper that waits for something?", path, probeTimeout)
		}
		return nil, fmt.Errorf("python interpreter %s does not run: %v: %s", path, err, strings.TrimSpace(stderr.String()))
	}
	var out struct {
		Exe          string
		Version      string
		Major, Minor int
		Roots        []string
		Path         []string
		Msgpack      string
		ExtSuffixes  []string `json:"ext_suffixes"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("python interpreter %s: unexpected probe output %q: %v", path, stdout.String(), err)
	}
	if out.Major != 3 || out.Minor < 8 {
		return nil, fmt.Errorf("python interpreter %s is Python %s: need CPython 3.8 or newer", path, out.Version)
	}
	seen := map[string]bool{}
	var roots []string
	for _, p := range out.Roots {
		p = filepath.Clean(p)
		if p == "/" || seen[p] {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			continue
		}
		seen[p] = true
		roots = append(roots, p)
	}
	sort.Strings(roots)
	ip := &interp{exe: out.Exe, version: out.Version, roots: roots, sysPath: out.Path, msgpack: out.Msgpack, msgpackOnPath: out.Msgpack != ""}
	if ip.msgpack == "" {
		ip.msgpack = findMsgpack(out.ExtSuffixes)
	}
	return ip, nil
}

// extractSDK writes the embedded aios_sdk into a content-addressed folder
// under the user cache (or temp) folder and returns the folder that holds
// aios_sdk/. Files are world-readable so sandboxed workers can read them.
func extractSDK() (string, error) {
	h := sha256.New()
	var names []string
	err := fs.WalkDir(pysdk.Files, "aios_sdk", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("embedded python SDK: %v", err)
	}
	sort.Strings(names)
	files := make(map[string][]byte, len(names))
	for _, n := range names {
		b, err := pysdk.Files.ReadFile(n)
		if err != nil {
			return "", fmt.Errorf("embedded python SDK: %v", err)
		}
		files[n] = b
		h.Write([]byte(n))
		h.Write([]byte{0})
		h.Write(b)
	}
	base, err := os.UserCacheDir()
	if err != nil || os.MkdirAll(base, 0o755) != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "aios-host", "python-sdk-"+hex.EncodeToString(h.Sum(nil))[:16])
	removeStaleSDKTemps(filepath.Dir(dir))
	if _, err := os.Stat(filepath.Join(dir, "aios_sdk", "_worker.py")); err == nil {
		// The folder is named by the content, but what is on disk may
		// differ (a full disk during an earlier extraction, a stray
		// edit): a damaged file would fail every Python plugin until the
		// folder was deleted by hand. The files are few and small: check
		// each and put right what differs, one atomic rename per file, so
		// a worker starting meanwhile reads an old or a new file, whole.
		if err := repairSDK(dir, names, files); err != nil {
			return "", fmt.Errorf("python SDK folder %s is damaged and cannot be repaired (delete it; it is made again): %v", dir, err)
		}
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("python SDK folder: %v", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".sdk-*")
	if err != nil {
		return "", fmt.Errorf("python SDK folder: %v", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	for _, n := range names {
		p := filepath.Join(tmp, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return "", fmt.Errorf("python SDK folder: %v", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "aios_sdk", "_worker.py")); serr == nil {
			return dir, nil // another process won the race
		}
		return "", fmt.Errorf("python SDK folder: %v", err)
	}
	return dir, nil
}

// staleSDKTemp is the age past which a ".sdk-*" folder beside the SDK
// folders is taken as left by an extraction whose process died (another
// host may be extracting now: a younger one is kept).
const staleSDKTemp = time.Hour

// removeStaleSDKTemps removes the temporary folders of extractions cut
// short (a host killed while extracting) from parent; errors are ignored
// (the next start tries again).
func removeStaleSDKTemps(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), ".sdk-") {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleSDKTemp {
			_ = os.RemoveAll(filepath.Join(parent, e.Name()))
		}
	}
}

// repairSDK rewrites each file of the extracted SDK at dir that is missing
// or differs from the embedded one (files maps its names to its content).
func repairSDK(dir string, names []string, files map[string][]byte) error {
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		// Not os.ReadFile: a FIFO put there would hold the runtime's
		// start forever; it is replaced as any damaged file.
		if b, err := fsperm.ReadRegular(p, int64(len(files[n]))); err == nil && bytes.Equal(b, files[n]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		tmp, err := os.CreateTemp(filepath.Dir(p), ".sdk-file-*")
		if err != nil {
			return err
		}
		_, werr := tmp.Write(files[n])
		cerr := tmp.Close()
		if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if err := os.Rename(tmp.Name(), p); err != nil {
			os.Remove(tmp.Name())
			return err
		}
	}
	return nil
}

// Load implements abi.Loader: it starts the first worker of the file's
// provider and reads its registration.
func (r *Runtime) Load(ctx context.Context, src abi.Source) (abi.Provider, error) {
	path, err := filepath.Abs(src.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", src.Path, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", src.Path, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder: the python runtime loads one .py file per provider", src.Path)
	}
	ip, err := r.interp(ctx)
	if err != nil {
		return nil, err
	}
	return newProvider(ctx, r, ip, path, src)
}
