package discovery

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/fsnotify/fsnotify"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/fsperm"
	"github.com/aios-host/aios-host/internal/origin"
	"github.com/aios-host/aios-host/trust"
)

// Source kinds, in priority order (seed §6.2: card > yaml > desktop).
const (
	KindDesktop  = "desktop"  // a .desktop entry matched to a known adapter
	KindYAML     = "yaml"     // tool.aios.yaml
	KindCard     = "card"     // adapter.json
	KindArtifact = "artifact" // a bare .wasm/.js/.ts/.py that describes itself
	KindRemote   = "remote"   // a remote card fetched over HTTP
)

func priority(kind string) int {
	switch kind {
	case KindDesktop:
		return 1
	case KindYAML:
		return 2
	}
	return 3
}

// Options configure a Discovery.
type Options struct {
	Host   *host.Host
	Config *config.Config // its plugins list and discovery section
	Logger *slog.Logger
	// HTTPClient fetches remote cards and JWKS (a 5 s timeout client when nil).
	HTTPClient *http.Client
	// Progress, when set, is told about each unit of the initial scan.
	Progress func(done, total int, path string, err error)
	// OnReload is told about every load, reload and unload (for metrics).
	OnReload func(ev ReloadEvent)
	// Library overrides the known-adapter library (DefaultLibrary when nil).
	Library *Library
	// Once scans the folders once, without watching them (one-shot
	// commands: `aios-host list` and `call` in their own process).
	Once bool

	// addWatch, when set, replaces the watcher's Add (tests: a watch
	// that fails as at fs.inotify.max_user_watches).
	addWatch func(w *fsnotify.Watcher, path string) error
	// maxDelay, when set, replaces the cap on a unit's debounce
	// (maxDebounce; tests).
	maxDelay time.Duration
	// keyStore, when set, is given the key store before Start (tests:
	// its TTL, MinRefetch and MaxStale).
	keyStore func(*trust.KeyStore)
}

// ReloadEvent describes one change discovery applied or refused.
type ReloadEvent struct {
	Provider string
	Source   string
	Action   string // "load", "reload", "unload", "error"
	Err      error
}

// Adapter is what discovery knows of one adapter, for aios/registry.search
// and aios/registry.info.
type Adapter struct {
	ID       string
	Kind     string // card, yaml, desktop, artifact, remote
	Source   string
	Card     *Card          // nil for a bare artifact
	Trust    abi.TrustLevel // the level it is served at (providers.<id>.trust when it applies)
	Signed   bool
	KeyID    string
	Active   bool   // registered and serving
	Shadowed string // source of the higher-priority description that won
	Detected *Detected
	Err      string // why it is not active, if it failed
	// Warnings are problems found while loading that did not stop it
	// (a card requiring authentication the host cannot supply).
	Warnings []string
}

// candidate is one unit's current good description and its loaded provider.
type candidate struct {
	key      string
	id       string
	kind     string
	card     *Card
	trust    abi.TrustLevel
	verified *trust.Verified
	digest   string
	provider abi.Provider // held by shared once the candidate is applied
	detected *Detected
	active   bool
	warnings []string // Adapter.Warnings

	shared    *sharedProvider // discovery's and the generations' holds on provider
	discarded bool            // discovery let go of provider
}

// hold makes discovery a holder of c's provider; called with mu when c
// becomes a unit's description.
func (c *candidate) hold(log *slog.Logger) {
	if c.shared == nil && c.provider != nil {
		c.shared = newShared(c.provider, func(err error) { c.closeFailed(log, err) })
	}
}

// closeFailed logs a failure of c's provider's Close: nothing else hears
// of it (the host's swap and unload close a generation, which reports
// success whenever its provider closes).
func (c *candidate) closeFailed(log *slog.Logger, err error) {
	if err != nil && log != nil {
		log.Warn("closing a provider failed", "provider", c.id, "source", c.key, "err", err)
	}
}

// discard lets go of c's provider: it is closed now, or when the last
// generation wrapping it drains. Called with mu (or on a candidate never
// applied).
func (c *candidate) discard(log *slog.Logger) {
	if c.discarded || c.provider == nil {
		return
	}
	c.discarded = true
	if c.shared != nil {
		_ = c.shared.release()
		return
	}
	c.closeFailed(log, closeWithin(c.provider, closeWait))
}

// Discovery scans and watches provider folders and remote adapters and
// keeps the host's registry in step with them.
type Discovery struct {
	h      *host.Host
	cfg    Config
	hcfg   *config.Config
	log    *slog.Logger
	keys   *trust.KeyStore
	lib    *Library
	hc     *http.Client
	opts   Options
	roots  []string // plugin dirs, then card dirs, then desktop dirs
	isDesk map[string]bool
	// isCards marks the adapter folders (discovery.dirs, the seed's
	// /usr/share/aios/adapters): any *.yaml at their top is a description.
	isCards   map[string]bool
	watched   map[string]bool        // roots with a watch (d.mu)
	deepFirst []string               // roots, the deepest first (a root inside another before it)
	rootIDs   map[string]os.FileInfo // the folder each watched root was when watched (d.mu)
	rootReal  map[string]string      // each watched root's path, symlinks resolved, when watched (d.mu)
	lost      map[string]bool        // watched roots whose watch ended (deleted or moved away) (d.mu)

	mu     sync.Mutex // guards the maps below and serializes reconciling
	cands  map[string]*candidate
	active map[string]*candidate // by provider id
	gens   sync.Map              // provider id → *generation (live)
	errs   map[string]string     // unit key → last error
	// blocked maps the units whose registration was refused for a tool
	// another provider holds to that provider's id: when its tools change
	// or go, they are loaded again (retryBlocked).
	blocked map[string]blockedBy
	// keyRetry are the local units refused because a key set could not
	// be fetched (trust.ErrKeyFetch), did not list their key
	// (trust.ErrKeyNotPublished) or their key is not valid yet
	// (trust.ErrKeyNotYetValid): retryKeyUnits schedules them again.
	keyRetry map[string]bool
	// keyFileErr is the refusal of a jwks file last logged (d.mu).
	keyFileErr string
	pending    map[string]*time.Timer // debounce timers by unit key
	// firstChange is when each pending unit's first change since its
	// timer was started came (d.mu): the debounce is capped there.
	firstChange map[string]time.Time
	mixed       map[string]string // provider id → the trust mix last warned about
	unmatched   map[string]string // provider id → the claims last warned to miss providers.<id>.source
	capped      map[string]string // remote URL → the trust cap last warned about
	// unsettled counts, per unit, the changes scheduled since the unit's
	// last reconcile began; a unit leaves it when a reconcile that saw its
	// last change ends. orphans are the descriptions of units that
	// vanished while other units were unsettled: they keep serving until
	// those settle (a file renamed in place: its new name loads first), or
	// orphanGrace passes. See settleOrphans.
	unsettled map[string]uint64
	orphans   map[string]*orphan // by provider id
	// batches counts the reconcileAll runs under way: while one runs,
	// warnMixedTrust only notes the ids in warnLater, warned about when
	// the last batch ends (a scan applying n copies of a file would warn
	// n−1 times, each listing every claim so far).
	batches   int
	warnLater map[string]bool

	notesMu sync.Mutex
	notes   map[string]string // path → why it is not loaded, as last logged
	// noteKids indexes notes by folder (folder → its noted entries), so
	// that forgetting a path looks at what is noted under it, not at
	// every note (each watch event forgets its path).
	noteKids  map[string]map[string]bool
	notesWork int // entries forgetNotes looked at (tests)
	// watchFails are the folders whose watch failed, as said (notesMu);
	// watchLimitSaid: the watch limit was said to be reached (once).
	watchFails     map[string]bool
	watchLimitSaid bool

	// treeMu guards treeReal and realNames: the folders watchTree
	// watches, by the name they were watched under (→ the folder they
	// are), and each such folder's names. Two symlinks to one folder
	// share one inotify watch, which fsnotify names by the first path
	// added: an event under one name counts for every name (aliases),
	// and the watch stays while a name is left (unwatchBelow).
	treeMu    sync.Mutex
	treeReal  map[string]string
	realNames map[string][]string
	// fileLinks maps the symlinks to a file at the top of a root to the
	// file they resolve to (treeMu): a change of that file, when it is in
	// a watched folder, is the link's too (linksTo).
	fileLinks map[string]string
	// dangling are the symlinks at the top of a root that lead nowhere
	// (treeMu): a link to a folder outside the roots whose folder was
	// removed, or not made yet (current -> /opt/app/releases/v3 before
	// v3 is unpacked). No watch sees their target come, so checkRoots
	// looks at them (TestLinkedFolderTargetBack).
	dangling map[string]bool
	// linkDirs are the symlinks to folders that watchTree entered (a
	// provider folder plugins/app -> /opt/app, a lib -> ../shared in
	// one), each with the folder it led to then (treeMu). The kernel
	// ends a watch with its folder, and says nothing under the link's
	// name when the link's folder is removed: checkDangling watches the
	// folder such a link leads to again when it is another one
	// (TestNestedLinkedFolderBack).
	linkDirs map[string]os.FileInfo
	// outDirs are the folders no other watch covers (outside the plugin
	// folders: plugins/tool.js -> ~/dev/tool/dist/tool.js) that hold the
	// files of fileLinks, each watched with the folder it was then
	// (treeMu; outMu serializes watchLinkDirs): an edit there reloads the
	// link (linksTo), and a folder removed and made again (a build
	// cleaning dist/) is watched again at the next check of the roots
	// (TestLinkedFileOutsideReloads).
	outDirs map[string]os.FileInfo
	outMu   sync.Mutex

	watcher *fsnotify.Watcher
	work    chan string
	stop    chan struct{}
	wg      sync.WaitGroup
	closed  bool
}

// New prepares discovery; Start scans and starts watching.
func New(opts Options) (*Discovery, error) {
	if opts.Host == nil {
		return nil, errors.New("discovery: no host")
	}
	cfg, err := LoadConfig(opts.Config)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Second}
	}
	base := ""
	if opts.Config != nil && opts.Config.File != "" {
		base = filepath.Dir(opts.Config.File)
	}
	keys, err := trust.LoadKeyConfigs(cfg.Keys, base, hc)
	if err != nil {
		return nil, fmt.Errorf("discovery.keys%w", err)
	}
	for _, k := range cfg.Keys {
		if u, err := url.Parse(k.JWKSURL); err == nil && u.Scheme == "http" && !origin.LoopbackHost(u.Host) {
			// Taken (a key server on a container's network), but said:
			// the keys decide which cards are served at the level.
			log.Warn("discovery.keys jwks_url is plain http to another machine: whoever is on the network path could swap the keys and have any card they sign served at this trust level; use https unless that network is yours alone",
				"jwks_url", k.JWKSURL, "trust", k.Trust)
		}
	}
	if opts.keyStore != nil {
		opts.keyStore(keys)
	}
	lib := opts.Library
	if lib == nil && cfg.knownAdapters() {
		if lib, err = DefaultLibrary(); err != nil {
			return nil, err
		}
	}
	d := &Discovery{h: opts.Host, cfg: cfg, hcfg: opts.Config, log: log, keys: keys, lib: lib, hc: hc, opts: opts,
		isDesk: map[string]bool{}, isCards: map[string]bool{}, watched: map[string]bool{}, rootIDs: map[string]os.FileInfo{}, rootReal: map[string]string{}, lost: map[string]bool{}, cands: map[string]*candidate{}, active: map[string]*candidate{},
		errs: map[string]string{}, blocked: map[string]blockedBy{}, keyRetry: map[string]bool{}, pending: map[string]*time.Timer{}, firstChange: map[string]time.Time{}, mixed: map[string]string{}, unmatched: map[string]string{}, warnLater: map[string]bool{}, notes: map[string]string{},
		unsettled: map[string]uint64{}, orphans: map[string]*orphan{},
		work: make(chan string, 1024), stop: make(chan struct{})}
	if cfg.RequireSignature {
		for _, rc := range cfg.Remotes {
			if rc.AllowUnsigned {
				log.Warn("discovery.require_signature refuses unsigned remote cards; allow_unsigned of this remote has no effect", "remote", rc.URL)
			}
		}
	}
	seen := map[string]bool{}
	add := func(dirs []string, desk, cards bool) {
		for _, p := range dirs {
			abs, err := filepath.Abs(p)
			if err != nil || seen[abs] {
				continue
			}
			seen[abs] = true
			d.roots = append(d.roots, abs)
			d.isDesk[abs] = desk
			d.isCards[abs] = cards
		}
	}
	if opts.Config != nil {
		add(opts.Config.Plugins, false, false)
	}
	add(cfg.Dirs, false, true)
	add(cfg.DesktopDirs, true, false)
	// A root inside another (plugins: [~/aios, ~/aios/extra]) owns what is
	// under it: a change there is its unit's, not the outer root's
	// provider folder's (TestRootInsideRootReloads).
	d.deepFirst = slices.Clone(d.roots)
	slices.SortStableFunc(d.deepFirst, func(a, b string) int { return len(b) - len(a) })
	return d, nil
}

// Keys is the trusted key store (for verifying and for /.well-known/jwks.json).
func (d *Discovery) Keys() *trust.KeyStore { return d.keys }

// Roots lists the folders discovery scans.
func (d *Discovery) Roots() []string { return append([]string(nil), d.roots...) }

// Start scans every folder (reporting progress), fetches remote cards, and
// then watches the folders until Close.
func (d *Discovery) Start(ctx context.Context) error {
	// A file given as a folder would be watched as one and then, at the
	// first check of the roots, be said to be gone (TestPluginsFileRefused).
	for _, r := range d.roots {
		if st, err := os.Stat(r); err == nil && !st.IsDir() {
			what := "plugin folder"
			if d.isDesk[r] {
				what = "desktop folder (discovery.desktop_dirs)"
			} else if d.isCards[r] {
				what = "card folder (discovery.dirs)"
			}
			return fmt.Errorf("discovery: %s %s is a file, not a folder: give the folder that holds it", what, r)
		}
	}
	if d.cfg.watch() && !d.opts.Once {
		w, err := fsnotify.NewWatcher()
		if err != nil {
			return fmt.Errorf("discovery: watching folders: %w", err)
		}
		d.watcher = w
		for _, r := range d.roots {
			if err := d.watchAdd(r); err != nil {
				if errors.Is(err, os.ErrNotExist) {
					d.log.Warn("plugin folder does not exist; it is watched for when it appears", "dir", r)
				}
				continue
			}
			d.watched[r] = true
			if st, err := os.Stat(r); err == nil {
				d.rootIDs[r] = st
				d.rootReal[r], _ = filepath.EvalSymlinks(r)
			}
		}
	}
	if d.watcher == nil {
		for _, r := range d.roots {
			if _, err := os.Stat(r); err != nil { // a file was refused above
				d.log.Warn("plugin folder not readable", "dir", r, "err", err)
			}
		}
	}
	units := d.scanRoots()
	d.reconcileAll(ctx, units, func(i int, u string, err error) {
		if d.opts.Progress != nil {
			d.opts.Progress(i+1, len(units), u, err)
		}
	})
	d.refreshRemotes(ctx)
	if d.watcher != nil {
		d.wg.Add(3)
		go d.eventLoop()
		go d.workLoop()
		go d.everyRefresh(d.retryKeyUnits)
	}
	if len(d.cfg.Remotes) > 0 {
		d.wg.Add(1)
		go d.everyRefresh(d.refreshRemotesNow)
	}
	if d.keys.HasFiles() || d.pollURLs() {
		d.wg.Add(1)
		go d.everyRefresh(d.reloadKeyFiles)
	}
	return nil
}

// reloadKeyFiles reads the config's jwks files again (every
// remote_refresh) and fetches the jwks_urls whose keys are older than
// their cache's TTL, and, when a key came or went (or a URL's keys got
// too old to trust), looks again at every unit, as aios/registry.refresh
// does: a key its owner removed from the file or the hub (revoked)
// unloaded nothing, and one added loaded nothing, until a restart or a
// refresh (TestKeyFileEditTakesEffect,
// TestJWKSURLKeyRemovedUnloadsWithoutChange).
func (d *Discovery) reloadKeyFiles() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ctx, cancelStop := d.untilStop(ctx)
	defer cancelStop()
	changed := d.keys.HasFiles() && d.keyFilesChanged()
	if d.pollURLs() {
		// A failed fetch is said by the units it refuses (and at
		// Debug here): the keys last fetched serve until MaxStale.
		urls, err := d.keys.RefreshURLs(ctx)
		if err != nil {
			d.log.Debug("a jwks_url could not be fetched again", "err", err)
		}
		changed = changed || urls
	}
	if !changed {
		return
	}
	_, _ = d.rescan(ctx, "all")
}

// pollURLs says whether reloadKeyFiles fetches the jwks_urls again: not
// in a one-shot scan (Options.Once), which serves no provider for long.
func (d *Discovery) pollURLs() bool {
	return d.keys.HasURLs() && !d.opts.Once
}

// keyFilesChanged reads the jwks files again, logging a file refused (at
// Error once, until it reads again), and reports whether a key came or
// went.
func (d *Discovery) keyFilesChanged() bool {
	changed, err := d.keys.ReloadFiles()
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	d.mu.Lock()
	last := d.keyFileErr
	d.keyFileErr = msg
	d.mu.Unlock()
	if msg != "" && msg != last {
		d.log.Error("a trusted key file was refused: the keys it held verify nothing until it is mended", "err", msg)
	} else if msg == "" && last != "" {
		d.log.Info("the trusted key files read again")
	}
	return changed
}

// Close stops watching. Registered providers stay with the host.
func (d *Discovery) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	for _, t := range d.pending {
		t.Stop()
	}
	d.mu.Unlock()
	close(d.stop)
	var err error
	if d.watcher != nil {
		err = d.watcher.Close()
	}
	d.wg.Wait()
	// Let go of every candidate's provider: shadowed ones close now, the
	// serving ones when the host closes their generation.
	d.mu.Lock()
	for _, c := range d.cands {
		c.discard(d.log)
	}
	for id, o := range d.orphans {
		o.timer.Stop()
		o.cand.discard(d.log)
		delete(d.orphans, id)
	}
	d.mu.Unlock()
	return err
}

// scanRoots lists every unit under the roots, adding watches on subfolders.
func (d *Discovery) scanRoots() []string {
	var units []string
	for _, r := range d.roots {
		units = append(units, d.scanRoot(r)...)
	}
	return units
}

// scanRoot lists the units of one root, adding watches on subfolders.
func (d *Discovery) scanRoot(r string) []string {
	var units []string
	{
		ents, err := os.ReadDir(r)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				d.log.Warn("cannot read folder", "dir", r, "err", err)
			}
			return nil
		}
		for _, e := range ents {
			p := filepath.Join(r, e.Name())
			if ignored(e.Name()) || slices.Contains(d.roots, p) {
				continue // a root inside this one is read as a root, not as a provider folder
			}
			isDir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				if st, err := os.Stat(p); err == nil {
					isDir = st.IsDir() // a symlink to a provider folder is a provider folder
				}
				d.trackLink(p)
			}
			if isDir {
				if skipCodeDir(e.Name()) {
					// node_modules of an npm install beside a top-level
					// tool.ts, or the __pycache__ of python3 tool.py run
					// here, holds no provider: it was read as a provider
					// folder ("describes no provider") and watched, up to
					// 1000 of its folders with a warning, each install
					// reloading it (TestTopLevelNodeModulesNoProvider).
					continue
				}
				if d.isDesk[r] {
					d.note(slog.LevelInfo, p, "nested", "folder not read: desktop entries are read only at the top of a desktop folder", "folder", p)
					continue
				}
				d.watchTree(p)
				units = append(units, p)
				continue
			}
			if d.relevant(r, e.Name()) {
				units = append(units, p) // load checks that it is a regular file
				continue
			}
			if !d.isDesk[r] { // a desktop folder holds caches and lists besides entries
				if e.Type()&fs.ModeSymlink != 0 {
					if _, err := os.Stat(p); err != nil {
						// A link to a folder not there (yet): said as
						// loadUnit says it, not as a file no loader
						// takes (TestDanglingFolderLinkSaidAsSuch).
						if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
							d.note(slog.LevelWarn, p, "dangling", "file skipped: a symlink to nothing", "file", p)
						} else {
							d.note(slog.LevelWarn, p, "badlink", "file skipped: its symlink cannot be followed", "file", p, "err", err)
						}
						continue
					}
				}
				if as, ok := nearMissExt[strings.ToLower(filepath.Ext(e.Name()))]; ok && !host.IsTypeDeclaration(e.Name()) {
					// A first tool saved as words.tsx was skipped at Info,
					// which list and call do not show.
					d.note(slog.LevelWarn, p, "noloader", "file not loaded: no loader takes this kind of file; rename it to "+as,
						"file", p, "loads", d.loadable())
				} else {
					d.note(slog.LevelInfo, p, "noloader", "file not loaded: no loader takes this kind of file",
						"file", p, "loads", d.loadable())
				}
			}
		}
	}
	return units
}

// ignored skips hidden files and editors' temporaries: vim's swap and
// backup files and the 4913 it makes to see whether it may write in a
// folder, emacs's auto-save #x#, JetBrains' safe-write x___jb_tmp___ and
// x___jb_old___, .tmp and .part files, and the copies of a buffer that
// Emacs's flycheck (flycheck_x.py) and flymake (x_flymake.py) write
// beside the file for a linter to check (TestLinterCopiesIgnored), and
// git mergetool's sides of a conflicted file (mergetoolCopy).
func ignored(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") || strings.HasSuffix(name, ".swp") ||
		strings.HasSuffix(name, ".tmp") || strings.HasSuffix(name, ".part") ||
		name == "4913" || (len(name) > 1 && strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#")) ||
		strings.HasSuffix(name, "___jb_tmp___") || strings.HasSuffix(name, "___jb_old___") ||
		strings.HasPrefix(name, "flycheck_") || strings.HasSuffix(strings.TrimSuffix(name, filepath.Ext(name)), "_flymake") ||
		mergetoolCopy(name)
}

// mergetoolCopy reports whether name is one of the sides of a conflicted
// file git mergetool writes beside it while a merge is resolved:
// x_BACKUP_1234.py, x_BASE_1234.py, x_LOCAL_1234.py, x_REMOTE_1234.py
// (TestMergetoolCopiesIgnored).
func mergetoolCopy(name string) bool {
	stem := strings.TrimSuffix(name, filepath.Ext(name))
	i := strings.LastIndexByte(stem, '_')
	if i < 0 || i == len(stem)-1 || strings.Trim(stem[i+1:], "0123456789") != "" {
		return false
	}
	stem = stem[:i]
	for _, side := range []string{"_BACKUP", "_BASE", "_LOCAL", "_REMOTE"} {
		if strings.HasSuffix(stem, side) && len(stem) > len(side) {
			return true
		}
	}
	return false
}

func isCardName(name string) bool {
	return name == "adapter.json" || strings.HasSuffix(name, ".adapter.json")
}

func isYAMLName(name string) bool {
	return name == "tool.aios.yaml" || strings.HasSuffix(name, ".aios.yaml") ||
		strings.HasSuffix(name, ".aios.yml")
}

// isYAML reports whether name, at the top of root, is a tool.aios.yaml
// description: tool.aios.yaml or *.aios.yaml anywhere, and any *.yaml or
// *.yml in an adapter folder (seed §3.1: /usr/share/aios/adapters/*.yaml).
func (d *Discovery) isYAML(root, name string) bool {
	if isYAMLName(name) {
		return true
	}
	ext := filepath.Ext(name)
	return d.isCards[root] && (ext == ".yaml" || ext == ".yml")
}

// loadable describes what discovery loads, for messages.
func (d *Discovery) loadable() string {
	return "adapter.json, *.adapter.json, tool.aios.yaml, *.aios.yaml, *.desktop, and artifacts " + strings.Join(d.h.Extensions(), " ")
}

// note logs, once, why path is not loaded (or only partly): at every scan
// the same reason is not logged again; a change to path, or another
// reason, logs it again.
// nearMissExt maps the extensions of JavaScript, TypeScript and Python
// variants no loader takes to what the file should be called.
var nearMissExt = map[string]string{
	".jsx": ".js (JSX is not supported)",
	".tsx": ".ts (JSX is not supported)",
	".cjs": ".js (a tool registers with the aios global, not module.exports)",
	".cts": ".ts",
	".pyw": ".py",
	".py3": ".py",
}

func (d *Discovery) note(level slog.Level, path, reason, msg string, args ...any) {
	d.notesMu.Lock()
	same := d.notes[path] == reason
	d.notes[path] = reason
	d.indexNote(path)
	d.notesMu.Unlock()
	if !same {
		d.log.Log(context.Background(), level, msg, args...)
	}
}

// indexNote links path into noteKids under its folder, and each folder
// above it under its own, up to one already linked. Called with notesMu.
func (d *Discovery) indexNote(path string) {
	if d.noteKids == nil {
		d.noteKids = map[string]map[string]bool{}
	}
	for {
		dir := filepath.Dir(path)
		if dir == path {
			return
		}
		kids := d.noteKids[dir]
		if kids == nil {
			kids = map[string]bool{}
			d.noteKids[dir] = kids
		}
		if kids[path] {
			return
		}
		kids[path] = true
		path = dir
	}
}

// unindexNote unlinks path from noteKids once nothing is noted at or
// under it, and the folders above it that are left with nothing. Called
// with notesMu.
func (d *Discovery) unindexNote(path string) {
	for {
		if _, noted := d.notes[path]; noted || len(d.noteKids[path]) > 0 {
			return
		}
		delete(d.noteKids, path)
		dir := filepath.Dir(path)
		kids := d.noteKids[dir]
		if dir == path || !kids[path] {
			return
		}
		delete(kids, path)
		path = dir
	}
}

// forgetNotes forgets what was noted about path and anything under it
// (it changed: if it is still not loaded, say so again), and about its
// folder (a folder that held nothing loadable). It looks at what is noted
// there only, not at every note: each watch event calls it.
//
// A file only written (its content changed, not its name or kind) keeps
// what was noted of its name or kind, and its folder's: only a note of
// its content (a card's authentication) is forgotten. The host's log sent
// to a file in a provider folder fed itself otherwise, each line a write
// that had the line said again (TestWrittenFileNotSaidAgain).
func (d *Discovery) forgetNotes(path string, written bool) {
	d.notesMu.Lock()
	defer d.notesMu.Unlock()
	if written {
		if r := d.notes[path]; strings.HasPrefix(r, "auth:") || r == "unsigned" {
			d.forgetNote(path, false)
		}
		return
	}
	d.forgetNote(path, true)
	d.forgetNote(filepath.Dir(path), false)
}

// forgetNote forgets path's note and, with under, what is noted beneath
// it. Called with notesMu.
func (d *Discovery) forgetNote(path string, under bool) {
	d.notesWork++
	delete(d.notes, path)
	if under {
		for kid := range d.noteKids[path] {
			d.forgetNote(kid, true)
		}
	}
	d.unindexNote(path)
}

func (d *Discovery) relevant(root, name string) bool {
	if d.isDesk[root] {
		return strings.HasSuffix(name, ".desktop")
	}
	if isCardName(name) || d.isYAML(root, name) || strings.HasSuffix(name, ".desktop") {
		return true
	}
	_, ok := d.h.LoaderFor(name)
	return ok
}

// unitOf maps a changed path to its unit: the file itself at a root's top
// level, or the root's subfolder that contains it.
func (d *Discovery) unitOf(path string) (string, bool) {
	if slices.Contains(d.roots, path) {
		return "", false // a root inside another is no unit of it: checkRoots watches it
	}
	for _, r := range d.deepFirst {
		rel, err := filepath.Rel(r, path)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		parts := strings.Split(rel, string(filepath.Separator))
		if ignored(parts[0]) || skipCodeDir(parts[0]) {
			return "", false // a hidden file, or in node_modules (scanRoot)
		}
		unit := filepath.Join(r, parts[0])
		if len(parts) > 1 {
			if d.isDesk[r] {
				return "", false
			}
			if ignored(parts[1]) {
				return "", false
			}
			// Deeper down: the package's aios/ folder (its card, seed
			// §2.1), an artifact a card names in a subfolder
			// (build/tool.wasm), files the artifact imports
			// (lib/util.js): all part of the unit (codeDigest), but not
			// what is in folders that hold no code.
			for _, dir := range parts[1 : len(parts)-1] {
				if skipCodeDir(dir) {
					return "", false
				}
			}
			if len(parts) > 2 && ignored(parts[len(parts)-1]) {
				return "", false
			}
			return unit, true
		}
		if st, err := os.Stat(unit); err == nil && st.IsDir() {
			return unit, !d.isDesk[r]
		}
		d.mu.Lock()
		_, known := d.cands[unit]
		_, failed := d.errs[unit] // a folder (or link to one) that failed to load, now gone
		d.mu.Unlock()
		return unit, known || failed || d.relevant(r, parts[0])
	}
	return "", false
}

func (d *Discovery) eventLoop() {
	defer d.wg.Done()
	roots := time.NewTicker(rootCheckInterval)
	defer roots.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-roots.C:
			d.checkRoots()
			d.checkDangling()
			d.watchLinkDirs()
		case err, ok := <-d.watcher.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// More changes came at once than the kernel queues (a
				// folder of thousands of files copied or rewritten):
				// the events past the queue are lost, so every folder
				// is looked at again, as at a refresh.
				d.log.Warn("folder watch overflowed (more changes at once than the kernel queues: fs.inotify.max_queued_events); rescanning every plugin folder", "err", err)
				for _, r := range d.roots {
					d.scheduleRoot(r)
				}
				continue
			}
			d.log.Warn("folder watch error", "err", err)
		case ev, ok := <-d.watcher.Events:
			if !ok {
				return
			}
			d.forgetNotes(ev.Name, ev.Op == fsnotify.Write)
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				d.unwatchBelow(ev.Name)
			}
			if (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && slices.Contains(d.roots, ev.Name) {
				// The root's own watch ended (deleted) or follows it
				// elsewhere (moved): the next root check watches what
				// has the name then, even if it is there already.
				_ = d.watcher.Remove(ev.Name)
				d.mu.Lock()
				d.lost[ev.Name] = true
				d.mu.Unlock()
				continue
			}
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					// A folder made (or moved in) inside a provider
					// folder, or a provider folder itself: its files
					// count in the unit's code (codeDigest). Or, at a
					// Remove or Rename, a folder that holds the name
					// already: two folders swapped (mv --exchange
					// .pkg.new pkg) give the new one's Create before
					// the old one's Rename, whose unwatchBelow ended the
					// new folder's watches (TestExchangedFolderWatched).
					d.watchTree(ev.Name)
				}
			} else if ev.Has(fsnotify.Chmod) && d.watchFailed(ev.Name) {
				// A folder whose watch failed (one the host could not
				// read, EACCES) had its mode changed: watch it now it
				// may be readable, or its edits went unseen until a
				// refresh (TestUnreadableFolderWatchedOnceReadable).
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					d.watchTree(ev.Name)
				}
			}
			if slices.Contains(d.roots, filepath.Dir(ev.Name)) {
				d.trackLink(ev.Name)
			}
			for _, l := range d.linksAt(ev.Name, ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
				d.trackLink(l) // a link in a provider folder changed or went
			}
			names := append([]string{ev.Name}, d.aliases(ev.Name)...)
			names = append(names, d.rootAliases(ev.Name)...)
			names = append(names, d.linksTo(ev.Name)...)
			scheduled := map[string]bool{}
			for _, n := range names {
				if unit, ok := d.unitOf(n); ok && !scheduled[unit] {
					scheduled[unit] = true
					d.schedule(unit)
				}
			}
		}
	}
}

// maxWatchedFolders bounds the folders watched inside one provider folder.
const maxWatchedFolders = 1000

// watchTree watches dir, a provider folder or a folder made inside one,
// and the folders below it that may hold the unit's code (skipCodeDir
// leaves out .git, __pycache__, node_modules): an edit at any depth
// (build/tool.wasm a card names, lib/util.js an artifact imports) reloads
// the unit. Nothing in a desktop folder is watched below its top.
func (d *Discovery) watchTree(dir string) {
	if d.watcher == nil {
		return
	}
	if slices.Contains(d.roots, dir) {
		return // a root inside another: its own watch is checkRoots'
	}
	under := false
	for _, r := range d.deepFirst {
		rel, err := filepath.Rel(r, dir)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		parts := strings.Split(rel, string(filepath.Separator))
		if d.isDesk[r] || ignored(parts[0]) || slices.ContainsFunc(parts, skipCodeDir) {
			return
		}
		under = true
		break
	}
	if !under {
		return
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || d.holdsRoot(dir) {
		return // a link to the plugin folder or above it is no provider folder (holdsRoot)
	}
	d.treeMu.Lock()
	was, had := d.treeReal[dir]
	d.treeMu.Unlock()
	if had && was != real {
		// The name is another folder now (a symlink switched by a
		// blue/green deploy: ln -s v2 .cur && mv -T .cur current): the
		// old folder's watches under this name go first. Adding the name
		// again moved fsnotify's entry to the new folder and left the
		// kernel's watch of the old one (and of each of its subfolders)
		// behind, a few more at each deploy (TestSwitchedLinkWatchesFreed).
		d.treeMu.Lock()
		others := slices.DeleteFunc(slices.Clone(d.realNames[was]), func(n string) bool { return n == dir })
		d.treeMu.Unlock()
		d.unwatchBelow(dir)
		if len(others) > 0 {
			// The old folder has other names (plugins/v1, which current
			// pointed to): fsnotify keys its one watch by the name added
			// first, which may be this one; adding this name for the new
			// folder took that watch over, and the old folder's edits
			// were lost (TestSwitchedLinkKeepsTargetWatched). End the
			// watches under this name and watch the old folder again
			// under its others.
			prefix := dir + string(filepath.Separator)
			for _, w := range d.watcher.WatchList() {
				if w == dir || strings.HasPrefix(w, prefix) {
					_ = d.watcher.Remove(w)
				}
			}
			d.treeMu.Lock()
			for name, r := range d.treeReal {
				if name == dir || strings.HasPrefix(name, prefix) {
					d.realNames[r] = slices.DeleteFunc(d.realNames[r], func(n string) bool { return n == name })
					delete(d.treeReal, name)
				}
			}
			d.treeMu.Unlock()
			for _, o := range others {
				d.watchTree(o)
			}
		}
	}
	n := 0
	// Symlinks to folders are followed, as codeDigest follows them: a
	// lib -> ../shared holds code the artifact imports (walkLinked).
	_ = walkLinked(dir, func(name string, isDir bool) error {
		if !isDir {
			return nil
		}
		if name != dir && skipCodeDir(filepath.Base(name)) {
			return filepath.SkipDir
		}
		if n++; n > maxWatchedFolders {
			d.note(slog.LevelWarn, dir, "watchcap", fmt.Sprintf("provider folder has more than %d subfolders; edits in the others are loaded at the next aios/registry.refresh", maxWatchedFolders), "folder", dir)
			return filepath.SkipAll
		}
		// name is as under the root, so its events map to the unit.
		path := real
		if name != dir {
			p, err := filepath.EvalSymlinks(name)
			if err != nil {
				return filepath.SkipDir
			}
			path = p
		}
		if d.watchAdd(name) == nil {
			var linked os.FileInfo
			if fi, err := os.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				linked, _ = os.Stat(name)
			}
			d.treeMu.Lock()
			if linked != nil {
				if d.linkDirs == nil {
					d.linkDirs = map[string]os.FileInfo{}
				}
				d.linkDirs[name] = linked
			}
			if d.treeReal == nil {
				d.treeReal, d.realNames = map[string]string{}, map[string][]string{}
			}
			if old, ok := d.treeReal[name]; ok {
				d.realNames[old] = slices.DeleteFunc(d.realNames[old], func(n string) bool { return n == name })
			}
			d.treeReal[name] = path
			if !slices.Contains(d.realNames[path], name) {
				d.realNames[path] = append(d.realNames[path], name)
			}
			d.treeMu.Unlock()
		}
		return nil
	})
}

// holdsRoot reports whether dir, in a plugin folder, is (through a
// symlink) a plugin folder itself or a folder above one: plugins/loop ->
// . or plugins/home -> ~. Read as a provider folder it was "several
// artifacts" naming the plugin folder's files, and its watch took in
// every provider folder (or the whole home folder, up to the cap) again
// under its name, each edit there reloading it too.
// Only a symlink is asked: a plugin folder listed inside another's
// provider folder (plugins: [a, a/pkg/extra]) is read as configured.
func (d *Discovery) holdsRoot(dir string) bool {
	if fi, err := os.Lstat(dir); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	for _, r := range d.roots {
		rr, err := filepath.EvalSymlinks(r)
		if err == nil && (rr == real || strings.HasPrefix(rr, real+string(filepath.Separator)) || real == string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// aliases are the other names of the watched folder that holds path (two
// symlinks to one folder): path as under each of them.
func (d *Discovery) aliases(path string) []string {
	dir := filepath.Dir(path)
	d.treeMu.Lock()
	defer d.treeMu.Unlock()
	real, ok := d.treeReal[dir]
	if _, out := d.outDirs[dir]; !ok && out {
		// A folder watched for a link into it first, then entered as
		// a linked provider folder: the one watch keeps the first name.
		real, ok = dir, true
	}
	if !ok {
		return nil
	}
	var out []string
	for _, n := range d.realNames[real] {
		if n != dir {
			out = append(out, filepath.Join(n, filepath.Base(path)))
		}
	}
	return out
}

// trackLink notes whether p, at the top of a root or of a provider
// folder, is a symlink to a file (and to which), or no longer one.
func (d *Discovery) trackLink(p string) {
	target := ""
	dangling := false
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		_, serr := os.Stat(p)
		dangling = serr != nil
		if t, err := filepath.EvalSymlinks(p); err == nil {
			if st, err := os.Stat(t); err == nil && !st.IsDir() {
				target = t
			}
		} else if t, err := os.Readlink(p); err == nil {
			// A link to a file not there yet (ln -s v2.fake tool.fake
			// before v2.fake is copied): noted by the name the file will
			// have, so its arrival loads the link too; it was skipped as
			// dangling until a refresh (TestDanglingLinkLoadsWhenTargetComes).
			if !filepath.IsAbs(t) {
				t = filepath.Join(filepath.Dir(p), t)
			}
			if dir, err := filepath.EvalSymlinks(filepath.Dir(t)); err == nil {
				target = filepath.Join(dir, filepath.Base(t))
			}
		}
	}
	d.treeMu.Lock()
	if dangling {
		if d.dangling == nil {
			d.dangling = map[string]bool{}
		}
		d.dangling[p] = true
	} else {
		delete(d.dangling, p)
	}
	_, had := d.fileLinks[p]
	if target == "" {
		delete(d.fileLinks, p)
	} else {
		if d.fileLinks == nil {
			d.fileLinks = map[string]string{}
		}
		d.fileLinks[p] = target
	}
	d.treeMu.Unlock()
	if target != "" || had {
		// The folder the link leads into is watched (or no longer
		// is): a link to a file outside the plugin folders saw no edit
		// of it (TestLinkedFileOutsideReloads).
		d.watchLinkDirs()
	}
}

// linksAt lists the links known to trackLink (fileLinks, dangling) that
// are path, other than those at the top of a root, and, when path was
// removed or moved away (under), those below it: a provider folder's
// links go with it.
func (d *Discovery) linksAt(path string, under bool) []string {
	prefix := path + string(filepath.Separator)
	d.treeMu.Lock()
	defer d.treeMu.Unlock()
	var out []string
	add := func(l string) {
		if (l == path || under && strings.HasPrefix(l, prefix)) && !slices.Contains(d.roots, filepath.Dir(l)) && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	for l := range d.fileLinks {
		add(l)
	}
	for l := range d.dangling {
		add(l)
	}
	return out
}

// watchLinkDirs watches the folders that hold the files of fileLinks
// and that no other watch covers (outDirs), and ends the watches of those
// no link leads into any more. A watched folder that is gone, or another
// one now (removed and made again), is watched again when it is there,
// and the links into it are reloaded: what was written there while it
// was not watched was not seen.
func (d *Discovery) watchLinkDirs() {
	if d.watcher == nil {
		return
	}
	d.outMu.Lock()
	defer d.outMu.Unlock()
	d.mu.Lock()
	covered := map[string]bool{}
	for _, real := range d.rootReal {
		covered[real] = true
	}
	d.mu.Unlock()
	want := map[string][]string{} // folder -> the links into it
	d.treeMu.Lock()
	for link, target := range d.fileLinks {
		if dir := filepath.Dir(target); !covered[dir] && len(d.realNames[dir]) == 0 {
			want[dir] = append(want[dir], link)
		}
	}
	var drop []string
	for dir := range d.outDirs {
		if want[dir] == nil {
			drop = append(drop, dir)
			delete(d.outDirs, dir)
		}
	}
	d.treeMu.Unlock()
	for _, dir := range drop {
		_ = d.watcher.Remove(dir)
	}
	if len(want) == 0 {
		return
	}
	watched := map[string]bool{}
	for _, w := range d.watcher.WatchList() {
		watched[w] = true
	}
	for dir, links := range want {
		st, err := os.Stat(dir)
		d.treeMu.Lock()
		was, had := d.outDirs[dir]
		d.treeMu.Unlock()
		if err != nil || !st.IsDir() {
			continue // gone: looked at again at the next check
		}
		if had && watched[dir] && os.SameFile(was, st) {
			continue
		}
		if d.watchAdd(dir) != nil {
			continue
		}
		d.treeMu.Lock()
		if d.outDirs == nil {
			d.outDirs = map[string]os.FileInfo{}
		}
		d.outDirs[dir] = st
		d.treeMu.Unlock()
		if had {
			for _, l := range links {
				if unit, ok := d.unitOf(l); ok {
					d.schedule(unit)
				}
			}
		}
	}
}

// linksTo lists the symlinks at the top of a root that point to path,
// which changed: a link to a file beside it (tool.fake -> tool-1.2.fake)
// saw no event of its own when that file was edited or deleted, so its
// copy kept the code it had at start, and served it when the file was
// deleted, through a link to nothing (TestLinkedFileChangeReloadsLink).
func (d *Discovery) linksTo(path string) []string {
	d.treeMu.Lock()
	n := len(d.fileLinks)
	d.treeMu.Unlock()
	if n == 0 {
		return nil
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return nil
	}
	real := filepath.Join(dir, filepath.Base(path))
	d.treeMu.Lock()
	defer d.treeMu.Unlock()
	var out []string
	for link, target := range d.fileLinks {
		if target == real && link != path {
			out = append(out, link)
		}
	}
	return out
}

// rootAliases are path's names under the other roots that are the same
// folder as its root, or as a folder under it (a plugin folder listed
// twice, once through a symlink: plugins: [/srv/aios, /opt/aios] with
// /opt/aios -> /srv/aios; or a root linked to a provider folder of
// another). The kernel watches such a folder once, and fsnotify names its
// events by the name added first, so the other name's units were never
// reloaded: its copy of a file kept the code it had at start, and served
// it again when the file was deleted (TestRootListedTwiceFollowsDisk).
func (d *Discovery) rootAliases(path string) []string {
	d.mu.Lock()
	var reals map[string]string // copied only when two roots could alias
	if len(d.rootReal) >= 2 {
		reals = make(map[string]string, len(d.rootReal))
		for r, real := range d.rootReal {
			if real != "" {
				reals[r] = real
			}
		}
	}
	d.mu.Unlock()
	if len(reals) < 2 {
		return nil
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return nil
	}
	real := filepath.Join(dir, filepath.Base(path))
	var out []string
	for _, o := range d.roots {
		ro, ok := reals[o]
		if !ok {
			continue
		}
		rel, err := filepath.Rel(ro, real)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		if alias := filepath.Join(o, rel); alias != path {
			out = append(out, alias)
		}
	}
	return out
}

// watchAdd watches path. A failure other than the folder being gone is
// logged at Warn, once for each folder (again after it was watched),
// and the kernel's watch limit (ENOSPC: fs.inotify.max_user_watches
// reached, every watch of this user counted) once in all: until then
// a watch that could not be added was silent, and edits there were
// simply never seen.
func (d *Discovery) watchAdd(path string) error {
	var err error
	if d.opts.addWatch != nil {
		err = d.opts.addWatch(d.watcher, path)
	} else {
		err = d.watcher.Add(path)
	}
	d.notesMu.Lock()
	defer d.notesMu.Unlock()
	if err == nil {
		delete(d.watchFails, path)
		return nil
	}
	if errors.Is(err, os.ErrNotExist) || d.watchFails[path] {
		return err
	}
	if d.watchFails == nil {
		d.watchFails = map[string]bool{}
	}
	d.watchFails[path] = true
	const later = "; its changes are not seen: they are loaded at the next aios/registry.refresh or restart"
	if errors.Is(err, syscall.ENOSPC) {
		if d.watchLimitSaid {
			d.log.Debug("cannot watch folder: the inotify watch limit is reached", "dir", path)
			return err
		}
		d.watchLimitSaid = true
		limit := "fs.inotify.max_user_watches"
		if b, rerr := os.ReadFile("/proc/sys/fs/inotify/max_user_watches"); rerr == nil {
			limit += " = " + strings.TrimSpace(string(b))
		}
		d.log.Warn("cannot watch folder: the kernel's limit of inotify watches for this user is reached ("+limit+
			", shared by every program of the user)"+later+", as are those of the other folders past the limit (said once); "+
			"raise it: sysctl fs.inotify.max_user_watches=524288 (and in /etc/sysctl.d/ to keep it)", "dir", path, "err", err)
		return err
	}
	d.log.Warn("cannot watch folder"+later, "dir", path, "err", err)
	return err
}

// watchFailed reports whether the watch of path, or of a folder below it,
// could not be added (watchAdd).
func (d *Discovery) watchFailed(path string) bool {
	prefix := path + string(filepath.Separator)
	d.notesMu.Lock()
	defer d.notesMu.Unlock()
	for p := range d.watchFails {
		if p == path || strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// unwatchBelow ends the watches of path, which was removed or moved away,
// and of the folders below it. A watch follows its folder, but its events
// keep the name it was added with: after `mv pkg pkg2` the edits in pkg2
// would be taken for changes of the gone pkg, and adding pkg2 finds that
// same watch, under its old name (which fsnotify then drops at the move's
// IN_MOVE_SELF, leaving pkg2 unwatched). The folder's new name, if under a
// root, is watched afresh (watchTree) when its Create comes.
//
// A folder that has other names (two symlinks to it) keeps its watch
// while one is left: removing one symlink must not end the other's
// reloads. Its events keep the name fsnotify has (aliases maps them).
func (d *Discovery) unwatchBelow(path string) {
	prefix := path + string(filepath.Separator)
	under := func(w string) bool { return w == path || strings.HasPrefix(w, prefix) }
	d.treeMu.Lock()
	for name, real := range d.treeReal {
		if under(name) {
			d.realNames[real] = slices.DeleteFunc(d.realNames[real], func(n string) bool { return n == name })
		}
	}
	// A name goes with the last name of its folder: until then the
	// watch, whatever name fsnotify gives it, stays, and its events
	// still map to the names left.
	keep, drop := map[string]bool{}, map[string]bool{}
	for name, real := range d.treeReal {
		switch {
		case len(d.realNames[real]) > 0:
			keep[name] = true
		default:
			drop[name] = true
			delete(d.treeReal, name)
		}
	}
	for real, names := range d.realNames {
		if len(names) == 0 {
			delete(d.realNames, real)
		}
	}
	d.treeMu.Unlock()
	for _, w := range d.watcher.WatchList() {
		if (under(w) || drop[w]) && !keep[w] {
			_ = d.watcher.Remove(w)
		}
	}
}

// notLoadedMsg words a failed load: a one-shot scan (Options.Once) has
// no previous version.
func (d *Discovery) notLoadedMsg(what string) string {
	if d.opts.Once {
		return "provider not " + what
	}
	return "provider not " + what + "; the previous version (if any) keeps serving"
}

// rootCheckInterval is how often the roots are checked for having gone
// or come back (a watch ends with its folder; a folder missing at start
// has none).
var rootCheckInterval = 2 * time.Second

// checkRoots watches a root that has appeared (missing at start, or
// deleted and made again) and reloads its units; a root that is gone
// has its units reconciled (their providers go) and is watched for again.
func (d *Discovery) checkRoots() {
	for _, r := range d.roots {
		st, err := os.Stat(r)
		exists := err == nil && st.IsDir()
		d.mu.Lock()
		was, id, lost := d.watched[r], d.rootIDs[r], d.lost[r]
		d.mu.Unlock()
		switch {
		case exists && was && (lost || id != nil && !os.SameFile(id, st)):
			// Another folder took the name between two checks (an
			// installer moving a fresh copy into place, rm -rf and mkdir,
			// a symlinked root switched): the watches are on the old one,
			// or died with it. Its subfolders' go too: those the new one
			// lacks were kept, watching the old release
			// (TestSwitchedRootWatchesFreed).
			d.unwatchBelow(r)
			if err := d.watchAdd(r); err != nil {
				d.mu.Lock()
				d.watched[r] = false
				delete(d.rootIDs, r)
				delete(d.rootReal, r)
				d.mu.Unlock()
				d.log.Warn("plugin folder replaced; cannot watch the new one", "dir", r, "err", err)
				d.scheduleRoot(r)
				continue
			}
			d.mu.Lock()
			d.rootIDs[r] = st
			d.rootReal[r], _ = filepath.EvalSymlinks(r)
			delete(d.lost, r)
			d.mu.Unlock()
			d.log.Info("plugin folder replaced by another; watching the new one and reloading its providers", "dir", r)
			d.scheduleRoot(r)
		case exists && !was:
			if err := d.watchAdd(r); err != nil {
				continue
			}
			d.mu.Lock()
			d.watched[r] = true
			d.rootIDs[r] = st
			d.rootReal[r], _ = filepath.EvalSymlinks(r)
			d.mu.Unlock()
			d.log.Info("plugin folder appeared; watching it", "dir", r)
			d.scheduleRoot(r)
		case !exists && was:
			_ = d.watcher.Remove(r)
			d.mu.Lock()
			d.watched[r] = false
			delete(d.rootIDs, r)
			delete(d.rootReal, r)
			delete(d.lost, r)
			d.mu.Unlock()
			d.log.Warn("plugin folder is gone; its providers are removed, and it is watched for when it comes back", "dir", r)
			d.scheduleRoot(r)
		}
	}
}

// checkDangling looks at the symlinks at the top of a root that led
// nowhere: one whose target is there again (a linked folder outside the
// roots removed and installed again, or made after its link) is watched
// and its unit loaded. Before, its provider was removed when the folder
// went and not loaded again when it came back, until a refresh or a
// restart, since no watch sees a folder outside the roots come.
func (d *Discovery) checkDangling() {
	d.treeMu.Lock()
	links := make([]string, 0, len(d.dangling))
	for p := range d.dangling {
		links = append(links, p)
	}
	d.treeMu.Unlock()
	for _, p := range links {
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			d.treeMu.Lock()
			delete(d.dangling, p) // gone or replaced: its own events said so
			d.treeMu.Unlock()
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		d.trackLink(p)
		if st.IsDir() && !skipCodeDir(filepath.Base(p)) && !d.holdsRoot(p) {
			d.watchTree(p)
		}
		if unit, ok := d.unitOf(p); ok {
			d.schedule(unit)
		}
	}
	// The links to folders watched: one whose folder was removed and
	// made again (a reinstall of /opt/app, a checkout of ../shared) has
	// lost its watch; the new folder is watched and its unit reloaded.
	d.treeMu.Lock()
	dirs := make(map[string]os.FileInfo, len(d.linkDirs))
	for p, st := range d.linkDirs {
		dirs[p] = st
	}
	d.treeMu.Unlock()
	if len(dirs) == 0 {
		return
	}
	// A folder removed and made again may have the same inode number:
	// that its watch is gone (fsnotify drops it at the folder's end)
	// says it too.
	watched := map[string]bool{}
	for _, w := range d.watcher.WatchList() {
		watched[w] = true
	}
	for p, was := range dirs {
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			d.treeMu.Lock()
			delete(d.linkDirs, p)
			d.treeMu.Unlock()
			continue
		}
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() {
			continue
		}
		d.treeMu.Lock()
		alive := watched[p]
		for _, n := range d.realNames[d.treeReal[p]] {
			alive = alive || watched[n]
		}
		d.treeMu.Unlock()
		if alive && os.SameFile(st, was) {
			continue
		}
		d.treeMu.Lock()
		delete(d.linkDirs, p) // watchTree notes it again
		d.treeMu.Unlock()
		d.watchTree(p)
		if unit, ok := d.unitOf(p); ok {
			d.schedule(unit)
		}
	}
}

// scheduleRoot reconciles every unit of root r: those known and those on
// disk now.
func (d *Discovery) scheduleRoot(r string) {
	units := map[string]bool{}
	prefix := r + string(filepath.Separator)
	d.mu.Lock()
	for u := range d.cands {
		if strings.HasPrefix(u, prefix) {
			units[u] = true
		}
	}
	d.mu.Unlock()
	for _, u := range d.scanRoot(r) {
		units[u] = true
	}
	for u := range units {
		d.schedule(u)
	}
}

// maxDebounce is the most a unit's reload waits after the first of its
// changes: ten times discovery.debounce, at least 1 s.
func (d *Discovery) maxDebounce() time.Duration {
	if d.opts.maxDelay > 0 {
		return d.opts.maxDelay
	}
	return max(time.Second, 10*d.cfg.Debounce)
}

// schedule (re)starts the debounce timer of a unit. The timer waits for
// discovery.debounce of quiet, but no longer than maxDebounce after the
// unit's first change: a folder written more often than the debounce (a
// build, a tool writing a file beside itself) would else put its reload
// off for as long as the writes go on.
func (d *Discovery) schedule(unit string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.scheduleLocked(unit)
}

// scheduleLocked is schedule, called with mu.
func (d *Discovery) scheduleLocked(unit string) {
	if d.closed {
		return
	}
	d.unsettled[unit]++
	if t := d.pending[unit]; t != nil {
		left := d.maxDebounce() - time.Since(d.firstChange[unit])
		if left <= 0 {
			return // due: the timer fires at the cap, or has fired
		}
		// A timer that has fired (its callback waits for mu) is left
		// alone: the reload it sends reads the files after this change.
		// Reset would arm it again, and the unit would be reloaded twice
		// (TestFiredDebounceNotRearmed).
		if t.Stop() {
			t.Reset(min(d.cfg.Debounce, left))
		}
		return
	}
	d.firstChange[unit] = time.Now()
	d.pending[unit] = time.AfterFunc(d.cfg.Debounce, func() {
		d.mu.Lock()
		delete(d.pending, unit)
		delete(d.firstChange, unit)
		d.mu.Unlock()
		select {
		case d.work <- unit:
		case <-d.stop:
		}
	})
}

// workLoop reconciles the units whose changes have settled: up to
// loadSlots of them at a time, so that a unit slow to load (a module sent
// to a compiler process, a bundle near its timeout) does not hold the
// reloads of the others, and one unit at a time: a unit that changes again
// while it is being reconciled is reconciled once more afterwards. Close
// cancels the loads in flight and waits for them.
func (d *Discovery) workLoop() {
	defer d.wg.Done()
	base, cancelAll := context.WithCancel(context.Background())
	defer cancelAll()
	sem := make(chan struct{}, loadSlots())
	done := make(chan string)
	running := map[string]bool{} // units being reconciled
	again := map[string]bool{}   // units that changed again meanwhile
	var inflight sync.WaitGroup
	start := func(unit string) {
		running[unit] = true
		inflight.Add(1)
		go func() {
			defer inflight.Done()
			select {
			case sem <- struct{}{}:
			case <-d.stop:
				return
			}
			ctx, cancel := context.WithTimeout(base, 2*time.Minute)
			_ = d.reconcile(ctx, unit)
			cancel()
			<-sem
			select {
			case done <- unit:
			case <-d.stop:
			}
		}()
	}
	for {
		select {
		case <-d.stop:
			cancelAll()
			inflight.Wait()
			return
		case unit := <-d.work:
			if running[unit] {
				again[unit] = true
				continue
			}
			start(unit)
		case unit := <-done:
			delete(running, unit)
			if again[unit] {
				delete(again, unit)
				start(unit)
			}
		}
	}
}

// loadSlots is how many units are loaded at a time: GOMAXPROCS, and at
// least 2, since part of a load is waiting on another process.
func loadSlots() int { return max(2, runtime.GOMAXPROCS(0)) }

// ErrClosed is Refresh's error once Close has been called (or when Close
// cut the refresh short).
var ErrClosed = errors.New("discovery is closed (the host is shutting down)")

// Refresh rescans (scope "local"), re-fetches remote cards ("remote") or
// both ("all" or ""). It returns the number of adapters known afterwards.
// After Close it does nothing and returns ErrClosed; Close cancels a
// Refresh under way (its loads are interrupted, what they loaded closed)
// and waits for it, as for the watch's reloads.
func (d *Discovery) Refresh(ctx context.Context, scope string) (int, error) {
	switch scope {
	case "", "all", "local", "remote":
	default:
		return 0, fmt.Errorf("scope %q: want local, remote or all", scope)
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return 0, ErrClosed
	}
	d.wg.Add(1) // Close waits for it
	d.mu.Unlock()
	defer d.wg.Done()
	ctx, cancel := d.untilStop(ctx)
	defer cancel()
	n, err := d.refresh(ctx, scope)
	select {
	case <-d.stop:
		return n, ErrClosed
	default:
	}
	return n, err
}

// refresh is Refresh, counted by d.wg.
func (d *Discovery) refresh(ctx context.Context, scope string) (int, error) {
	// A key file edited since (a key revoked or added) counts here as on
	// the timer: the units are looked at again below anyway.
	d.keyFilesChanged()
	return d.rescan(ctx, scope)
}

// rescan is refresh without reading the key files again (reloadKeyFiles
// has just read them).
func (d *Discovery) rescan(ctx context.Context, scope string) (int, error) {
	if scope != "remote" {
		seen := map[string]bool{}
		units := d.scanRoots()
		for _, u := range units {
			seen[u] = true
		}
		d.reconcileAll(ctx, units, nil)
		d.mu.Lock()
		var gone []string
		for k := range d.cands {
			if !seen[k] && !strings.HasPrefix(k, "remote:") {
				gone = append(gone, k)
			}
		}
		for k := range d.errs {
			// A unit that failed and is gone (the watch may not have
			// said so: a removed link to a folder) has no error left.
			if _, has := d.cands[k]; !has && !seen[k] && !strings.HasPrefix(k, "remote:") {
				gone = append(gone, k)
			}
		}
		d.mu.Unlock()
		for _, k := range gone {
			_ = d.reconcile(ctx, k)
		}
	}
	if scope != "local" {
		d.refreshRemotes(ctx)
	}
	return len(d.Adapters()), nil
}

// everyRefresh runs f every remote_refresh until Close.
func (d *Discovery) everyRefresh(f func()) {
	defer d.wg.Done()
	t := time.NewTicker(d.cfg.RemoteRefresh)
	defer t.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-t.C:
			f()
		}
	}
}

// refreshRemotesNow re-fetches the remote cards, within a minute; Close
// ends it (a remote that does not answer would else hold Close, which
// waits for it, for its whole fetch timeout).
func (d *Discovery) refreshRemotesNow() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ctx, cancelStop := d.untilStop(ctx)
	defer cancelStop()
	d.refreshRemotes(ctx)
}

// retryKeyUnits schedules again the local units refused because a key
// set could not be fetched (a host started before the network, a key hub
// down) or did not list their key yet (trust.ErrKeyNotPublished: a key
// rotated in, published after the card): without it they stayed refused
// until a change in their folder, a refresh or a restart. It runs every
// remote_refresh.
//
// It also schedules the local units loaded under a key that has expired
// since: their signature is looked at again only when something looks at
// the unit, and they kept serving at the key's trust after it expired
// (TestExpiredKeyUnloadsWithoutChange).
func (d *Discovery) retryKeyUnits() {
	now := time.Now()
	d.mu.Lock()
	units := make([]string, 0, len(d.keyRetry))
	for u := range d.keyRetry {
		units = append(units, u)
	}
	for u, c := range d.cands {
		if v := c.verified; v != nil && !d.keyRetry[u] && !strings.HasPrefix(u, "remote:") && !v.KeyExpires.IsZero() && now.After(v.KeyExpires) {
			units = append(units, u)
		}
	}
	d.mu.Unlock()
	for _, u := range units {
		d.schedule(u)
	}
}

func (d *Discovery) refreshRemotes(ctx context.Context) {
	// The cards are fetched together: one after the other, each remote
	// that did not answer held every one after it (and the host's start)
	// for its whole timeout. They are applied in the order of the config.
	type fetched struct {
		cand *candidate
		err  error
	}
	got := make([]fetched, len(d.cfg.Remotes))
	var wg sync.WaitGroup
	for i, rc := range d.cfg.Remotes {
		wg.Go(func() { got[i].cand, got[i].err = d.remoteCandidate(ctx, rc) })
	}
	wg.Wait()
	for i, rc := range d.cfg.Remotes {
		key := "remote:" + rc.URL
		cand, err := got[i].cand, got[i].err
		d.mu.Lock()
		old := d.cands[key]
		d.mu.Unlock()
		if err != nil && old != nil && old.verified != nil && signerGone(err) {
			err = fmt.Errorf("%w; %w", err, errSignerGone)
		} else if err != nil && ctx.Err() == nil {
			// A refused card (tampered, another key's) leaves the one
			// serving only while its own signature still holds.
			if gone := d.servingSignerGone(ctx, old); gone != nil {
				err = fmt.Errorf("%w; and the version serving is no longer vouched for: %w", err, gone)
			}
		}
		if err == nil {
			if old != nil && old.digest == cand.digest && old.trust == cand.trust {
				cand.discard(d.log)
				// The same card as the one serving: nothing to swap, and
				// whatever failed since (a fetch, a tampered copy) is over.
				d.mu.Lock()
				delete(d.errs, key)
				d.mu.Unlock()
				continue
			}
		}
		_ = d.apply(ctx, key, cand, err)
	}
}

// checkPins compares the digests fileSums gave for a described unit
// (sums[1] the artifact's, then its pinned files' in FileNames order) with
// a card's pins; the artifact's only when artifactPinned.
func checkPins(a *trust.ArtifactPin, sums []string, artifactPinned bool) error {
	if artifactPinned {
		if err := a.CheckDigest(sums[1]); err != nil {
			return err
		}
	}
	for i, f := range a.FileNames() {
		if err := a.CheckFile(f, sums[2+i]); err != nil {
			return err
		}
	}
	return nil
}

// descriptionRead is called when loadDescribed has read a description,
// before it hashes the unit's files (a test's seam for a card replaced in
// between).
var descriptionRead = func(string) {}

// errChangedWhileLoading: the file's bytes changed between the load and
// the check after it (a save in progress); the change's own event loads
// it again.
var errChangedWhileLoading = errors.New("changed while it was loading; waiting for the next change")

// errSignerGone marks a unit whose serving version's signature no longer
// verifies because of the keys (one removed from its JWKS, expired, or
// replaced under its kid): unlike a refused new version, which leaves the
// old one serving, the serving one goes too — a restart would not load it.
var errSignerGone = errors.New("the provider it serves is unloaded")

// signerGone reports whether err, from verifying a card, says its key is
// unknown or expired now.
func signerGone(err error) bool {
	return errors.Is(err, trust.ErrUnknownKey) || errors.Is(err, trust.ErrKeyExpired)
}

// recheck verifies an unchanged signed card again; it returns an error
// wrapping errSignerGone when it no longer verifies. Its bytes did not
// change, so any refusal says the keys changed: one gone, expired, or
// other material under its kid (a signature that "does not match").
func (d *Discovery) recheck(ctx context.Context, raw []byte) (*trust.Verified, error) {
	v, err := trust.VerifyCard(ctx, raw, d.keys)
	if err != nil {
		return nil, fmt.Errorf("%w; %w", err, errSignerGone)
	}
	return v, nil
}

func (d *Discovery) remoteCandidate(ctx context.Context, rc RemoteConfig) (*candidate, error) {
	fetch := rc
	if d.cfg.RequireSignature {
		fetch.AllowUnsigned = false // require_signature wins (docs/trust.md)
	}
	r, err := FetchRemoteCard(ctx, fetch, d.keys, d.hc)
	if err != nil {
		if rc.AllowUnsigned && !fetch.AllowUnsigned && errors.Is(err, trust.ErrUnsigned) {
			err = fmt.Errorf("%w (discovery.require_signature refuses unsigned remote cards even with allow_unsigned: true)", err)
		}
		return nil, err
	}
	if r.Capped != "" {
		d.mu.Lock()
		warn := d.capped[rc.URL] != r.Capped
		if d.capped == nil {
			d.capped = map[string]string{}
		}
		d.capped[rc.URL] = r.Capped
		d.mu.Unlock()
		if warn {
			d.log.Warn("remote adapter card trusted less than its signer", "url", rc.URL, "why", r.Capped)
		}
	}
	// The configured URL is the user's word for its host; an endpoint the
	// card names on another host needs Network(that host) at its trust.
	if base, err := url.Parse(rc.URL); err == nil {
		if err := d.checkEndpoints(rc.URL+WellKnownPath, "remote:"+rc.URL, r.Card.Adapter.ID, r.Trust, r.Card, r.Endpoint, base.Hostname()); err != nil {
			return nil, err
		}
	}
	p, err := NewRemoteProvider(r.Card, r.Endpoint, rc.TokenValue(), nil)
	if err != nil {
		return nil, err
	}
	authWarn := d.warnAuth(rc.URL+WellKnownPath, r.Card, r.Endpoint, rc.TokenValue(), true)
	// Digest the signed content, not the signature bytes: ECDSA signatures
	// differ on every signing, and a re-signed identical card is no change.
	payload, _, err := trust.SigningPayload(r.Card.Raw)
	if err != nil {
		payload = r.Card.Raw
	}
	sum := sha256.Sum256(payload)
	cand := &candidate{key: "remote:" + rc.URL, id: r.Card.Adapter.ID, kind: KindRemote, card: r.Card, trust: r.Trust,
		verified: r.Verified, digest: hex.EncodeToString(sum[:]), provider: p}
	if authWarn != "" {
		cand.warnings = []string{authWarn}
	}
	return cand, nil
}

// warnAuth warns, once per card and problem, when a remote adapter's card
// requires authentication (authentication.required) by schemes none of
// which the host can supply: the host sends only a bearer token, and only
// one configured for a discovery.remotes entry (token, token_env), and
// only over http(s). The adapter is loaded; its calls will likely be
// refused by the remote side. It returns the warning (for
// aios/registry.info), or "".
func (d *Discovery) warnAuth(desc string, card *Card, endpoint, token string, configured bool) string {
	au := card.Authentication
	if au == nil || !au.Required {
		return ""
	}
	httpEP := strings.HasPrefix(endpoint, "http://") || strings.HasPrefix(endpoint, "https://")
	if slices.Contains(au.Schemes, "bearer") && token != "" && httpEP {
		return ""
	}
	var supports string
	switch {
	case !configured:
		supports = "bearer, with a token configured for the adapter: list its host in discovery.remotes with token or token_env (a card in a plugin folder is given none)"
	case token == "":
		supports = "bearer, with a token configured for the adapter: this discovery.remotes entry has no token (or its token_env is empty)"
	case !httpEP:
		supports = "bearer, over an http(s) endpoint only: the token is not sent on " + endpoint
	default:
		supports = "bearer (the token configured in discovery.remotes)"
	}
	schemes := strings.Join(au.Schemes, ", ")
	d.note(slog.LevelWarn, desc, "auth:"+schemes+":"+supports,
		"remote adapter requires authentication the host cannot supply; it is loaded, but the remote side may refuse its calls",
		"card", desc, "adapter", card.Adapter.ID, "schemes", schemes, "host_supports", supports)
	return "the card requires authentication (" + schemes + ") the host cannot supply; it supports " + supports + "; the remote side may refuse calls"
}

// reconcileAll reconciles units. It loads loadSlots of them at a time:
// loading is where the time goes (compiling, instantiating, bundling,
// starting worker processes), and one slow file must not hold the others.
// It applies the results in the order of units, so that what gets
// registered does not depend on which load finished first; done, if set,
// is told about each unit in that order.
func (d *Discovery) reconcileAll(ctx context.Context, units []string, done func(i int, unit string, err error)) {
	type loaded struct {
		cand  *candidate
		err   error
		ready chan struct{}
	}
	res := make([]loaded, len(units))
	for i := range res {
		res[i].ready = make(chan struct{})
	}
	d.mu.Lock()
	d.batches++
	d.mu.Unlock()
	defer d.endBatch()
	sem := make(chan struct{}, loadSlots())
	go func() {
		for i, u := range units {
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				d.mu.Lock()
				old := d.cands[u]
				d.mu.Unlock()
				res[i].cand, res[i].err = d.load(ctx, u, old)
				close(res[i].ready)
			}()
		}
	}()
	for i, u := range units {
		<-res[i].ready
		err := d.apply(ctx, u, res[i].cand, res[i].err)
		if done != nil {
			done(i, u, err)
		}
	}
}

// endBatch ends a reconcileAll: when it was the last one under way, the
// ids whose claims changed meanwhile are warned about, once each.
func (d *Discovery) endBatch() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.batches--; d.batches > 0 {
		return
	}
	ids := slices.Sorted(maps.Keys(d.warnLater))
	clear(d.warnLater)
	for _, id := range ids {
		if win := d.best(id); win != nil {
			d.warnMixedTrust(id, win)
		}
	}
}

// reconcile re-reads one unit and applies the result.
func (d *Discovery) reconcile(ctx context.Context, unit string) error {
	d.mu.Lock()
	old := d.cands[unit]
	seen := d.unsettled[unit]
	d.mu.Unlock()
	cand, err := d.load(ctx, unit, old)
	err = d.apply(ctx, unit, cand, err)
	d.mu.Lock()
	if n, ok := d.unsettled[unit]; ok && n == seen {
		delete(d.unsettled, unit)
	}
	if !d.closed {
		d.settleOrphans(ctx)
	}
	d.mu.Unlock()
	return err
}

// orphanGrace is the longest a vanished unit's description keeps serving
// while other units load.
var orphanGrace = 5 * time.Second

// orphan is the serving description of a unit that is gone.
type orphan struct {
	cand  *candidate
	timer *time.Timer // settles at the grace's end
}

// adopt keeps the serving description old of the vanished unit serving
// while other units are unsettled: a file renamed in place (one unit goes,
// another comes) then swaps to its new name's provider without a moment
// in which its tools are missing. It reports whether old was kept; called
// with mu.
func (d *Discovery) adopt(unit string, old *candidate) bool {
	if d.opts.Once || !old.active || d.orphans[old.id] != nil || d.best(old.id) != nil {
		return false // another description of the id takes over at once
	}
	others := false
	for u := range d.unsettled {
		if u != unit {
			others = true
			break
		}
	}
	if !others {
		return false
	}
	o := &orphan{cand: old}
	o.timer = time.AfterFunc(orphanGrace, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.closed || d.orphans[old.id] != o {
			return
		}
		d.dropOrphan(ctx, old.id)
	})
	d.orphans[old.id] = o
	d.log.Info("file gone; its provider keeps serving until the other files loading now are done (at most "+orphanGrace.String()+
		"), in case one of them is it renamed", "provider", old.id, "file", unit)
	return true
}

// settleOrphans lets go of orphans another description has replaced, and
// unloads the rest once no other unit is unsettled. Called with mu.
func (d *Discovery) settleOrphans(ctx context.Context) {
	for id, o := range d.orphans {
		if !o.cand.active {
			o.timer.Stop()
			delete(d.orphans, id)
			o.cand.discard(d.log)
		} else if len(d.unsettled) == 0 {
			d.dropOrphan(ctx, id)
		}
	}
}

// dropOrphan unloads orphan id (or hands id to another description).
// Called with mu.
func (d *Discovery) dropOrphan(ctx context.Context, id string) {
	o := d.orphans[id]
	if o == nil {
		return
	}
	o.timer.Stop()
	delete(d.orphans, id)
	_ = d.resolve(ctx, id)
	d.retryBlocked(id)
	o.cand.discard(d.log)
}

// conflictingOrphan returns the id of the orphan whose registration err
// (a refused registration) names, or "".
func (d *Discovery) conflictingOrphan(err error) string {
	for id := range d.orphans {
		if conflictsWith(err, id) {
			return id
		}
	}
	return ""
}

var errUnchanged = errors.New("unchanged")

// errNoArtifact marks a card refused for naming neither an artifact nor
// an endpoint; its text is empty, the error saying it already.
var errNoArtifact = errors.New("")

// apply installs cand as unit's description (nil: the unit is gone or
// describes nothing). On err the old version keeps serving.
func (d *Discovery) apply(ctx context.Context, unit string, cand *candidate, err error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		if cand != nil {
			cand.discard(d.log)
		}
		return nil
	}
	delete(d.blocked, unit)
	if errors.Is(err, errUnchanged) {
		// The unit holds what serves (or is shadowed) already: whatever
		// was refused since (a tampered or half-written file) is gone.
		delete(d.errs, unit)
		delete(d.keyRetry, unit)
		return nil
	}
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		// The load was interrupted (SIGINT/SIGTERM while the host starts,
		// or Close): the unit is not broken, and nothing is said of it.
		d.log.Debug("load interrupted", "file", unit)
		return err
	}
	if err != nil {
		prev, failed := d.errs[unit]
		d.errs[unit] = err.Error()
		level := slog.LevelError
		if errors.Is(err, errChangedWhileLoading) {
			level = slog.LevelInfo // an editor's save in steps: the next change loads it
		}
		if failed && prev == err.Error() {
			// A remote that is down fails each re-fetch (every
			// remote_refresh) alike: said once at Error, not every time.
			// So does a local unit loaded again for a change beside its
			// code (the host's log in its folder: each line said was a
			// change, which failed alike, another line;
			// TestSameLoadErrorSaidOnce).
			level = slog.LevelDebug
		}
		retrying := d.keyRetry[unit]
		delete(d.keyRetry, unit)
		if (errors.Is(err, trust.ErrKeyFetch) || errors.Is(err, trust.ErrKeyNotPublished) || errors.Is(err, trust.ErrKeyNotYetValid)) && !strings.HasPrefix(unit, "remote:") {
			d.keyRetry[unit] = true
			if retrying {
				level = slog.LevelDebug // said once; tried again every remote_refresh
			}
		}
		msg := d.notLoadedMsg("loaded")
		old := d.cands[unit]
		gone := old != nil && errors.Is(err, errSignerGone)
		if gone {
			// Not "the previous version keeps serving": it goes below.
			msg = "provider not loaded, and the version serving is unloaded"
		}
		d.log.Log(context.Background(), level, msg, "file", unit, "err", err)
		d.event(ReloadEvent{Source: unit, Action: "error", Err: err})
		if gone {
			delete(d.cands, unit)
			_ = d.resolve(ctx, old.id)
			d.retryBlocked(old.id)
			old.discard(d.log)
		}
		return err
	}
	delete(d.errs, unit)
	delete(d.keyRetry, unit)
	old := d.cands[unit]
	if cand == nil {
		if old == nil {
			return nil
		}
		delete(d.cands, unit)
		if d.adopt(unit, old) {
			return nil
		}
		_ = d.resolve(ctx, old.id)
		d.retryBlocked(old.id)
		old.discard(d.log)
		return nil
	}
	cand.hold(d.log)
	d.cands[unit] = cand
	if old != nil && old.id != cand.id && old.active && d.best(old.id) == nil {
		// The unit's provider id changed in place and nothing else
		// describes the old id: the new id takes its place in one
		// registry snapshot, even when they hold the same tools.
		err = d.resolveDrop(ctx, cand.id, old.id)
	} else {
		err = d.resolve(ctx, cand.id)
	}
	if err != nil && old != nil && old.id != cand.id && old.active && conflictsWith(err, old.id) {
		// The new id's tools clash with the old id's registration, which
		// the swap could not take over (another description claims the
		// old id): hand the old id on first, then register the new one.
		// Between the two a call may find neither tool.
		if d.resolve(ctx, old.id) == nil {
			if err = d.resolve(ctx, cand.id); err != nil {
				d.cands[unit] = old // put the old version back
				if e := d.resolve(ctx, old.id); e != nil {
					d.log.Error("old version of a provider could not be restored", "provider", old.id, "file", unit, "err", e)
				}
			}
		}
	}
	if id := d.conflictingOrphan(err); id != "" && id != cand.id {
		// The tools clash with a vanished unit's provider kept serving
		// under another id (a renamed file whose id changed with it):
		// that one goes now, and this one takes its tools.
		d.dropOrphan(ctx, id)
		err = d.resolve(ctx, cand.id)
	}
	if err != nil {
		// Keep the old version: restore it and drop the new one.
		if old != nil {
			d.cands[unit] = old
		} else {
			delete(d.cands, unit)
		}
		cand.discard(d.log)
		d.errs[unit] = err.Error()
		if b, ok := conflictOf(err); ok && b.holder != cand.id {
			d.blocked[unit] = b
		}
		d.log.Error(d.notLoadedMsg("registered"), "file", unit, "err", err)
		d.event(ReloadEvent{Provider: cand.id, Source: unit, Action: "error", Err: err})
		return err
	}
	d.retryBlocked(cand.id)
	if old != nil {
		if old.id != cand.id {
			_ = d.resolve(ctx, old.id)
			d.retryBlocked(old.id)
		}
		// A serving old version's generation was closed by the host on
		// the swap; its provider closes when that generation drains.
		if old.provider != cand.provider {
			old.discard(d.log)
		}
	}
	return nil
}

// blockedBy is what refused a unit's registration: provider holder
// holds tool (at version, when exact: the same tool version; else the
// tool, at a higher trust).
type blockedBy struct {
	holder, tool, version string
	exact                 bool
}

// conflictOf reads what a registration refused for a tool another
// provider holds (a Conflict naming it) says.
func conflictOf(err error) (blockedBy, bool) {
	var te *abi.ToolError
	if !errors.As(err, &te) || te.Code != abi.Conflict {
		return blockedBy{}, false
	}
	m, _ := te.Data.(map[string]any)
	b := blockedBy{}
	b.holder, _ = m["registered_by"].(string)
	b.tool, _ = m["tool"].(string)
	b.version, _ = m["version"].(string)
	_, byTrust := m["registered_by_trust"]
	b.exact = !byTrust
	return b, b.holder != ""
}

// retryBlocked loads again the units refused for a tool that provider id
// held: its tools changed or went, so they may register now. A tool moved
// from one file to another, the new file written first (refused: the old
// one still held it), was served by neither until a restart
// (TestToolMovedBetweenFilesServed). Called with mu.
func (d *Discovery) retryBlocked(id string) {
	if d.watcher == nil || d.opts.Once {
		return // nothing watches: a refresh or restart loads them
	}
	for u, b := range d.blocked {
		if b.holder != id {
			continue
		}
		if b.exact {
			// A reload of the holder that keeps the tool version changes
			// nothing for the unit: loading it again would fail the same.
			if e, err := d.h.Registry().Resolve(b.tool, b.version); err == nil && e.Provider != nil && e.Provider.Info.ID == id {
				continue
			}
		}
		delete(d.blocked, u)
		d.scheduleLocked(u)
	}
}

// conflictsWith reports whether err is the registry refusing a tool that
// provider id holds.
func conflictsWith(err error, id string) bool {
	b, ok := conflictOf(err)
	return ok && b.holder == id
}

func (d *Discovery) event(ev ReloadEvent) {
	if d.opts.OnReload != nil {
		d.opts.OnReload(ev)
	}
}

// better reports whether candidate a wins over b for the same provider id:
// the higher trust level (d.rank), then the one from providers.<id>.source
// (a level that lowers the bound provider must not let a stray of that
// level shadow it: TestBoundSourceWinsTies), then the higher kind
// (card > yaml > desktop), then the higher adapter version (an older
// release, validly signed, dropped beside the current one in a folder
// that sorts first must not serve the id: TestOlderSignedCopyDoesNotShadowNewer),
// then the lexically first source.
func (d *Discovery) better(a, b *candidate) bool {
	if ra, rb := d.rank(a), d.rank(b); ra != rb {
		return ra > rb
	}
	if ba, bb := d.bound(a), d.bound(b); ba != bb {
		return ba
	}
	if pa, pb := priority(a.kind), priority(b.kind); pa != pb {
		return pa > pb
	}
	if va, vb := a.version(), b.version(); va != nil && vb != nil {
		if c := va.Compare(vb); c != 0 {
			return c > 0
		}
	}
	return a.key < b.key
}

// warnDowngrade warns when id, served by cur, is now served by win at a
// lower adapter version: a signature has no date, so an older release,
// validly signed, put in place of the current one (by anyone able to write
// the folder, or a card server) loads as any release does; the operator
// hears of it (docs/trust.md, "Downgrade and replay").
func (d *Discovery) warnDowngrade(id string, cur, win *candidate) {
	from, to := cur.version(), win.version()
	if from == nil || to == nil || !to.LessThan(from) {
		d.warnToolDowngrade(id, cur, win)
		return
	}
	args := []any{"provider", id, "from", from.Original(), "to", to.Original(), "source", win.key, "trust", d.servedTrust(win).String()}
	if win.verified != nil {
		args = append(args, "key_id", win.verified.KeyID)
	}
	if cur.key != win.key {
		args = append(args, "previous_source", cur.key)
	}
	d.log.Warn("provider now serves an older version than before (a downgrade): if nobody meant to roll it back, restore the newer release and check who can write to its folder", args...)
}

// warnToolDowngrade warns when win, serving id at an adapter version no
// lower than cur's, registers a tool at a lower version than cur did: a
// caller pinned to the newer one (~1.1) then finds no version, one of ^1
// gets the older schema, and semver_check, which compares a version with
// those below it, has nothing to say.
func (d *Discovery) warnToolDowngrade(id string, cur, win *candidate) {
	if cur.provider == nil || win.provider == nil {
		return
	}
	before, after := cur.provider.Describe(), win.provider.Describe()
	if before == nil || after == nil {
		return
	}
	was, now := newestTools(before), newestTools(after)
	var down []string
	for name, v := range now {
		if w := was[name]; w != nil && v.LessThan(w) {
			down = append(down, name+" "+w.Original()+" → "+v.Original())
		}
	}
	if len(down) == 0 {
		return
	}
	slices.Sort(down)
	d.log.Warn("provider now registers tools at older versions than before (a downgrade): callers pinned to the newer versions find none; if nobody meant to roll them back, restore the newer release",
		"provider", id, "tools", strings.Join(down, ", "), "source", win.key)
}

// newestTools is the newest SemVer version reg registers of each tool.
func newestTools(reg *abi.ToolRegister) map[string]*semver.Version {
	m := make(map[string]*semver.Version, len(reg.Tools))
	for _, t := range reg.Tools {
		if v, err := semver.StrictNewVersion(t.Version); err == nil {
			if w := m[t.Name]; w == nil || v.GreaterThan(w) {
				m[t.Name] = v
			}
		}
	}
	return m
}

// version is the adapter version c describes (its card's, else what its
// provider registers), nil when it is not SemVer.
func (c *candidate) version() *semver.Version {
	v := ""
	switch {
	case c.card != nil:
		v = c.card.Adapter.Version
	case c.provider != nil:
		if reg := c.provider.Describe(); reg != nil {
			v = reg.Provider.Version
		}
	}
	sv, err := semver.StrictNewVersion(v)
	if err != nil {
		return nil
	}
	return sv
}

// rank is c's trust level in priority: the level discovery gave it (its
// signer's, else its folder's), or providers.<id>.trust when that is bound
// to c's source (providers.<id>.source): the bound provider competes at
// the level it is served at, so a stray file that ties with it by the
// levels discovery computes and sorts first by path cannot shadow it
// (TestBoundTrustWinsPriority). A level set without a source applies
// to every claim of the id alike and leaves priority to their own levels.
func (d *Discovery) rank(c *candidate) abi.TrustLevel {
	if ov, ok := d.override(c.id); !ok || ov.Source == "" {
		return c.trust
	}
	return d.servedTrust(c)
}

// bound reports whether c is loaded from the source providers.<id>.trust
// is bound to (providers.<id>.source).
func (d *Discovery) bound(c *candidate) bool {
	ov, ok := d.override(c.id)
	return ok && ov.Trust != "" && ov.Source != "" && ov.TrustAppliesTo(c.key)
}

// servedTrust is the level the host serves c at: providers.<id>.trust
// when it applies to c's source (config.ProviderOverride.TrustAppliesTo,
// as the host's policy decides), else the level discovery gave c.
func (d *Discovery) servedTrust(c *candidate) abi.TrustLevel {
	ov, ok := d.override(c.id)
	if !ok || ov.Trust == "" || !ov.TrustAppliesTo(c.key) {
		return c.trust
	}
	l, err := abi.ParseTrustLevel(ov.Trust)
	if err != nil {
		return c.trust
	}
	return l
}

// servedGrants is what the host grants provider id served by c's
// provider p, as it computes them when p is added: what p asks for ∩ its
// level's caps ∩ providers.<id>.grants (providerCaps).
func (d *Discovery) servedGrants(id string, c *candidate, p abi.Provider) abi.Grants {
	reg := p.Describe()
	if reg == nil {
		return nil
	}
	asked, err := abi.ParseGrants(reg.Provider.Capabilities)
	if err != nil {
		return nil
	}
	_, caps := d.providerCaps(id, c.key, c.trust)
	return abi.Intersect(asked, caps)
}

// best picks the winning description of id (see better).
func (d *Discovery) best(id string) *candidate {
	var win *candidate
	for _, c := range d.cands {
		if c.id != id || c.provider == nil {
			continue
		}
		if win == nil || d.better(c, win) {
			win = c
		}
	}
	if o := d.orphans[id]; win == nil && o != nil {
		win = o.cand
	}
	return win
}

// maxClaimsListed is how many of the descriptions claiming one id a
// warning names; it says how many more there are.
const maxClaimsListed = 8

// warnMixedTrust warns when descriptions of different trust levels claim
// id (once for each such set): the most trusted one serves, and a less
// trusted file naming the id of a trusted one is worth a look. It also
// warns when several descriptions of one level other than .desktop
// entries (which describe a known adapter's id by design) claim id: two
// files that name no id and share a stem (tools.js, tools.py), or a file
// copied into two plugin folders; all but one would be left out without a
// word.
func (d *Discovery) warnMixedTrust(id string, win *candidate) {
	var all []*candidate
	levels := map[abi.TrustLevel]bool{}
	same := 0
	for _, c := range d.cands {
		if c.id == id && c.provider != nil {
			all = append(all, c)
			levels[d.rank(c)] = true
			if d.rank(c) == d.rank(win) && c.kind != KindDesktop {
				same++
			}
		}
	}
	d.warnUnmatchedSource(id, all)
	if len(levels) < 2 && same < 2 {
		delete(d.mixed, id)
		return
	}
	// A claim's level is the one priority compares; one served at another
	// (providers.<id>.trust without a source) says so.
	claim := func(c *candidate) string {
		if st := d.servedTrust(c); st != d.rank(c) {
			return c.key + " (" + d.rank(c).String() + ", " + c.kind + ", served at " + st.String() + ")"
		}
		return c.key + " (" + d.rank(c).String() + ", " + c.kind + ")"
	}
	sigs := make([]string, len(all))
	for i, c := range all {
		sigs[i] = claim(c)
	}
	sort.Strings(sigs)
	sig := strings.Join(sigs, "; ")
	if d.mixed[id] == sig {
		return
	}
	if d.batches > 0 {
		d.warnLater[id] = true
		return
	}
	d.mixed[id] = sig
	// The serving claim first, then the others as they would take over;
	// past maxClaimsListed, how many more (n copies of a file must not
	// cost n paths a line).
	slices.SortFunc(all, func(a, b *candidate) int {
		if d.better(a, b) {
			return -1
		}
		if d.better(b, a) {
			return 1
		}
		return 0
	})
	var claims []string
	for _, c := range all[:min(len(all), maxClaimsListed)] {
		claims = append(claims, claim(c))
	}
	if n := len(all) - maxClaimsListed; n > 0 {
		claims = append(claims, fmt.Sprintf("… and %d more", n))
	}
	if len(levels) < 2 && d.bound(win) {
		d.log.Warn("several descriptions claim one provider id; the one from providers."+id+".source serves, the others are shadowed",
			"provider", id, "serving", win.key, "trust", d.servedTrust(win).String(), "claims", claims)
		return
	}
	if len(levels) < 2 {
		d.log.Warn("several descriptions claim one provider id; one serves (card > yaml > desktop, then the higher adapter version, then the first path), the others are shadowed: give each its own id",
			"provider", id, "serving", win.key, "trust", d.servedTrust(win).String(), "claims", claims)
		return
	}
	d.log.Warn("descriptions of different trust levels claim one provider id; the most trusted serves, the others are shadowed",
		"provider", id, "serving", win.key, "trust", d.servedTrust(win).String(), "claims", claims)
}

// warnUnmatchedSource warns when providers.<id>.source (with a trust
// level) matches none of the descriptions claiming id, all: the level
// applies to none of them, and the host names only the one that serves
// (a stray, say), never the provider meant, when its source was spelt
// another way (the artifact of a folder provider, a path through a
// symlink). Once for each set of claims; called with mu.
func (d *Discovery) warnUnmatchedSource(id string, all []*candidate) {
	ov, ok := d.override(id)
	if !ok || ov.Trust == "" || ov.Source == "" {
		return
	}
	keys := make([]string, 0, len(all))
	for _, c := range all {
		if ov.TrustAppliesTo(c.key) {
			delete(d.unmatched, id)
			return
		}
		keys = append(keys, c.key)
	}
	sort.Strings(keys)
	sig := strings.Join(keys, "\n")
	if d.unmatched[id] == sig {
		return
	}
	if d.batches > 0 {
		d.warnLater[id] = true
		return
	}
	d.unmatched[id] = sig
	resolved := ov.Source
	if !strings.Contains(resolved, "://") {
		if abs, err := filepath.Abs(config.ExpandHome(resolved)); err == nil {
			resolved = abs
		}
	}
	if n := len(keys) - maxClaimsListed; n > 0 {
		keys = append(keys[:maxClaimsListed], fmt.Sprintf("… and %d more", n))
	}
	d.log.Warn("providers."+id+".source matches none of the descriptions claiming the id, so its trust level applies to none of them",
		"provider", id, "source", ov.Source, "resolved", resolved, "claims", keys,
		"hint", "a folder provider's source is its folder, an artifact's its file, a remote's remote:URL; paths are compared as written (after ~/ and the working directory), symlinks are not followed")
}

// resolve makes the host serve the best description of id. Called with mu.
func (d *Discovery) resolve(ctx context.Context, id string) error { return d.resolveDrop(ctx, id, "") }

// resolveDrop is resolve; when id is not served yet and drop is (the
// previous id of a unit whose id changed, that no other description
// claims), id's provider takes drop's place in one registry snapshot.
func (d *Discovery) resolveDrop(ctx context.Context, id, drop string) error {
	win := d.best(id)
	cur := d.active[id]
	if win != nil {
		d.warnMixedTrust(id, win)
	} else {
		delete(d.mixed, id)
		delete(d.unmatched, id)
	}
	if win == cur {
		return nil
	}
	if win == nil {
		delete(d.active, id)
		cur.active = false
		d.gens.Delete(id)
		if err := d.h.RemoveProvider(id); err != nil {
			d.log.Warn("unloading provider", "provider", id, "err", err)
		}
		d.log.Info("provider unloaded", "provider", id, "source", cur.key)
		d.event(ReloadEvent{Provider: id, Source: cur.key, Action: "unload"})
		return nil
	}
	win.hold(d.log)
	gen := newGeneration(win.shared, func() *generation {
		if g, ok := d.gens.Load(id); ok {
			return g.(*generation)
		}
		return nil
	})
	gen.trust = d.servedTrust(win)
	gen.grants = d.servedGrants(id, win, gen.inner)
	meta := host.ProviderMeta{Source: win.key, Trust: win.trust}
	if _, remote := win.provider.(*RemoteProvider); remote {
		// A remote adapter's tool that a provider of equal or higher
		// trust already serves (two aios hosts both export
		// analyze-complexity 1.0.0) is left out, not the whole remote.
		meta.Partial = true
	}
	action := "load"
	var err error
	dropped := d.active[drop]
	if drop != "" && dropped != nil && d.best(drop) == nil {
		meta.Replaces = drop
	} else {
		dropped = nil
	}
	if cur == nil {
		// The old id's calls that reach its generation after the swap
		// are forwarded to the new one.
		var prevGen *generation
		if dropped != nil {
			if g, ok := d.gens.Load(drop); ok {
				prevGen = g.(*generation)
				prevGen.next.Store(gen)
			}
		}
		err = d.h.AddProvider(ctx, gen, meta)
		if err != nil && prevGen != nil {
			prevGen.next.Store(nil)
		}
	} else {
		action = "reload"
		// Publish the new generation first: a call that reaches the old one
		// after the host closes it is forwarded here.
		prev, hadPrev := d.gens.Load(id)
		d.gens.Store(id, gen)
		err = d.h.ReplaceProvider(ctx, gen, meta)
		if err != nil {
			if hadPrev {
				d.gens.Store(id, prev)
			} else {
				d.gens.Delete(id)
			}
		}
	}
	if err != nil {
		gen.abandon()
		return err
	}
	if cur != nil {
		cur.active = false
	}
	if dropped != nil {
		delete(d.active, drop)
		dropped.active = false
		d.gens.Delete(drop)
		d.log.Info("provider unloaded", "provider", drop, "source", dropped.key, "replaced_by", id)
		d.event(ReloadEvent{Provider: drop, Source: dropped.key, Action: "unload"})
	}
	win.active = true
	d.active[id] = win
	d.gens.Store(id, gen)
	if rp, ok := win.provider.(*RemoteProvider); ok {
		rp.StartHealth()
	}
	args := []any{"provider", id, "kind", win.kind, "trust", d.servedTrust(win).String(), "source", win.key}
	if cur != nil && d.servedTrust(cur) != d.servedTrust(win) {
		// A level changed (a key moved to another set, another
		// description serving): said, or it read as any reload.
		args = append(args, "previous_trust", d.servedTrust(cur).String())
	}
	d.log.Info("provider "+action+"ed", args...)
	if cur != nil {
		d.warnDowngrade(id, cur, win)
	}
	if cur != nil && cur.key != win.key && d.cands[cur.key] == cur {
		d.log.Info("provider now served by another description; the previous one is shadowed",
			"provider", id, "serving", win.key, "trust", d.servedTrust(win).String(), "kind", win.kind,
			"shadowed", cur.key, "shadowed_trust", d.servedTrust(cur).String(), "shadowed_kind", cur.kind)
	}
	d.event(ReloadEvent{Provider: id, Source: win.key, Action: action})
	return nil
}

// load reads one unit. It returns (nil, nil) when the unit is gone or
// describes nothing, errUnchanged when its content has not changed.
//
// When the unit's new bytes are refused, the version serving keeps
// serving only while its own signature still verifies at the level it
// was loaded at: a folder changed (by anyone able to write to it) into
// something refused must not keep the version loaded before under a key
// revoked or expired since (TestRevokedKeyUnloadsTamperedUnit).
func (d *Discovery) load(ctx context.Context, unit string, old *candidate) (*candidate, error) {
	cand, err := d.loadUnit(ctx, unit, old)
	if err != nil && !errors.Is(err, errUnchanged) && !errors.Is(err, errSignerGone) && ctx.Err() == nil {
		if gone := d.servingSignerGone(ctx, old); gone != nil {
			err = fmt.Errorf("%w; and the version serving is no longer vouched for: %w", err, gone)
		}
	}
	return cand, err
}

// servingSignerGone checks the signature of old, a unit's serving version
// whose files changed since it was loaded, again: an error wrapping
// errSignerGone when its key no longer verifies it (gone, expired,
// replaced) or vouches for it at a lower level than it was loaded at (it
// cannot be loaded again at that level: its files are no longer those
// signed), else nil. An unsigned old version has nothing to check.
func (d *Discovery) servingSignerGone(ctx context.Context, old *candidate) error {
	if old == nil || old.verified == nil || old.card == nil {
		return nil
	}
	v, err := d.recheck(ctx, old.card.Raw)
	if err != nil {
		return err
	}
	if v.Trust < old.verified.Trust {
		return fmt.Errorf("its key %q now vouches for %s only at %s, not at %s as when it was loaded, and its files changed since; %w",
			v.KeyID, old.id, v.Trust, old.verified.Trust, errSignerGone)
	}
	return nil
}

func (d *Discovery) loadUnit(ctx context.Context, unit string, old *candidate) (*candidate, error) {
	st, err := os.Stat(unit)
	// ENOTDIR: a folder on the way is now a file (the plugin folder
	// replaced by one): the unit is gone with it.
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		if _, lerr := os.Lstat(unit); lerr == nil {
			d.note(slog.LevelWarn, unit, "dangling", "file skipped: a symlink to nothing", "file", unit)
			d.trackLink(unit) // looked at until its target comes (checkDangling)
		}
		return nil, nil
	}
	if errors.Is(err, syscall.ELOOP) {
		// "stat x.fake: too many levels of symbolic links" did not say
		// that the links (a.fake -> b.fake -> a.fake) go round.
		return nil, fmt.Errorf("%s is a symlink loop: its links lead back to themselves (or are more than 40 deep) and reach no file", unit)
	}
	if err != nil {
		return nil, err
	}
	root := filepath.Dir(unit)
	if st.IsDir() {
		if d.holdsRoot(unit) {
			d.note(slog.LevelWarn, unit, "rootlink", "folder skipped: a symlink to the plugin folder itself or a folder above it", "folder", unit)
			return nil, nil
		}
		return d.loadFolder(ctx, unit, root, old)
	}
	if !st.Mode().IsRegular() {
		// A FIFO would block the read, a device never end it.
		d.note(slog.LevelWarn, unit, "irregular", "file skipped: not a regular file", "file", unit, "is", fsperm.Kind(st.Mode()))
		return nil, nil
	}
	name := filepath.Base(unit)
	switch {
	case strings.HasSuffix(name, ".desktop"):
		return d.loadDesktop(unit, old)
	case isCardName(name) || d.isYAML(root, name):
		return d.loadDescribed(ctx, unit, root, unit, "", old)
	default:
		return d.loadArtifact(ctx, unit, root, old)
	}
}

func (d *Discovery) loadFolder(ctx context.Context, dir, root string, old *candidate) (*candidate, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var card, yml string
	var aiosCard, aiosYML string // the package's aios/ folder (seed §2.1)
	var artifacts []string
	for _, e := range ents {
		n := e.Name()
		if ignored(n) {
			continue
		}
		p := filepath.Join(dir, n)
		isDir, mode := e.IsDir(), e.Type()
		if mode&fs.ModeSymlink != 0 {
			st, err := os.Stat(p)
			if err != nil || !st.IsDir() {
				// A link to a file (or to none yet): its folder is
				// watched when no other watch covers it (outside the
				// plugin folders: TestLinkedFileOutsideInFolderReloads).
				d.trackLink(p)
			}
			if err != nil {
				d.note(slog.LevelWarn, p, "dangling", "file in a provider folder skipped: a symlink to nothing", "file", p)
				continue
			}
			isDir, mode = st.IsDir(), st.Mode()
		}
		if isDir && n == trust.PackageCardFolder {
			if aiosCard, aiosYML, err = d.packageCards(p); err != nil {
				return nil, err
			}
			continue
		}
		if isDir {
			d.note(slog.LevelInfo, p, "nested", "folder inside a provider folder not scanned: only the top level of a provider folder is read (a card's artifact.path may still name a file in it)", "folder", p)
			continue
		}
		_, loadable := d.h.LoaderFor(n)
		described := isCardName(n) || isYAMLName(n)
		if !described && !loadable {
			d.note(slog.LevelInfo, p, "noloader", "file in a provider folder not loaded: no loader takes this kind of file", "file", p, "loads", d.loadable())
			continue
		}
		if !mode.IsRegular() {
			d.note(slog.LevelWarn, p, "irregular", "file in a provider folder skipped: not a regular file", "file", p, "is", fsperm.Kind(mode))
			continue
		}
		switch {
		case isCardName(n):
			if card != "" {
				return nil, fmt.Errorf("%s: two cards (%s, %s)", dir, filepath.Base(card), n)
			}
			card = p
		case isYAMLName(n):
			if yml != "" {
				return nil, fmt.Errorf("%s: two tool.aios.yaml files (%s, %s)", dir, filepath.Base(yml), n)
			}
			yml = p
		default:
			artifacts = append(artifacts, p)
		}
	}
	// A description in aios/ is the package's as if it were beside the
	// artifact; one in each place is an error naming both.
	if aiosCard != "" {
		if card != "" {
			return nil, fmt.Errorf("%s: two cards (%s, %s/%s); keep one", dir, filepath.Base(card), trust.PackageCardFolder, filepath.Base(aiosCard))
		}
		card = aiosCard
	}
	if aiosYML != "" {
		if yml != "" {
			return nil, fmt.Errorf("%s: two tool.aios.yaml files (%s, %s/%s); keep one", dir, filepath.Base(yml), trust.PackageCardFolder, filepath.Base(aiosYML))
		}
		yml = aiosYML
	}
	desc := card
	if desc == "" {
		desc = yml
	} else if yml != "" {
		d.log.Debug("tool.aios.yaml shadowed by adapter.json (card > yaml)", "folder", dir)
	}
	if desc != "" {
		art := pickArtifact(artifacts)
		cand, err := d.loadDescribed(ctx, dir, root, desc, art, old)
		if art == "" && len(artifacts) > 1 && errors.Is(err, errNoArtifact) {
			// They are beside it, but several (TestCardBesideSeveralArtifactsNamesThem).
			return nil, fmt.Errorf("%s: several artifacts (%s) beside the card and none named: name one in artifact.path", desc, baseNames(artifacts))
		}
		return cand, err
	}
	switch len(artifacts) {
	case 0:
		d.note(slog.LevelInfo, dir, "empty", "folder describes no provider: it has no adapter.json, tool.aios.yaml or artifact", "folder", dir, "loads", d.loadable())
		return nil, nil
	case 1:
		return d.loadArtifact(ctx, artifacts[0], root, old, dir)
	}
	if a := pickArtifact(artifacts); a != "" {
		return d.loadArtifact(ctx, a, root, old, dir)
	}
	return nil, fmt.Errorf("%s: several artifacts (%s) and no card naming one; add adapter.json with artifact.path, or name one tool.<ext> (or index.ts / index.js, .mts, .mjs for a JS/TS provider)", dir, baseNames(artifacts))
}

// packageCards returns the card (adapter.json) and tool.aios.yaml in a
// package's aios/ folder, and watches the folder: seed §2.1 puts a local
// adapter's card at <pkg>/aios/adapter.json. Other files there are not
// descriptions (a card's artifact.path may still name one).
func (d *Discovery) packageCards(dir string) (card, yml string, err error) {
	if d.watcher != nil {
		_ = d.watchAdd(dir) // an edit of the card reloads the package
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", "", err
	}
	for _, e := range ents {
		n := e.Name()
		if ignored(n) || (!isCardName(n) && !isYAMLName(n)) {
			continue
		}
		p := filepath.Join(dir, n)
		if n != "adapter.json" && n != "tool.aios.yaml" {
			d.note(slog.LevelInfo, p, "aiosname", "file in a package's aios folder not read: the package's description there is adapter.json or tool.aios.yaml", "file", p)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			d.note(slog.LevelWarn, p, "dangling", "file in a provider folder skipped: a symlink to nothing", "file", p)
			continue
		}
		if !st.Mode().IsRegular() {
			d.note(slog.LevelWarn, p, "irregular", "file in a provider folder skipped: not a regular file", "file", p, "is", fsperm.Kind(st.Mode()))
			continue
		}
		if n == "adapter.json" {
			card = p
		} else {
			yml = p
		}
	}
	return card, yml, nil
}

// pickArtifact returns the folder's tool.<ext>, or its only artifact, or
// else its index.ts (.mts, .js, .mjs): the entry of a JS/TS provider with its
// modules beside it (plugins/NAME/index.ts, as docs/js.md and the JS
// runtime's errors advise; TestIndexEntryWithModulesLoads).
//
// Two tool.<ext> (tool.ts and the tool.js tsc writes beside it, or a
// tool.py too) are no choice: "" (the folder loaded the first by name,
// tool.js, the edits of tool.ts never served: TestSeveralToolFilesNamed).
func pickArtifact(artifacts []string) string {
	tool := ""
	for _, a := range artifacts {
		if strings.TrimSuffix(filepath.Base(a), filepath.Ext(a)) == "tool" {
			if tool != "" {
				return ""
			}
			tool = a
		}
	}
	if tool != "" {
		return tool
	}
	if len(artifacts) == 1 {
		return artifacts[0]
	}
	for _, entry := range abi.JSFolderEntries { // index.mjs and index.mts were no entry
		for _, a := range artifacts {
			if filepath.Base(a) == entry {
				return a
			}
		}
	}
	return ""
}

func baseNames(paths []string) string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func (d *Discovery) folderTrust(root string) abi.TrustLevel {
	if d.hcfg == nil {
		return abi.Untrusted
	}
	return d.hcfg.FolderTrust(root)
}

// loadArtifact loads a bare artifact (unit is the file or its folder).
func (d *Discovery) loadArtifact(ctx context.Context, path, root string, old *candidate, unitOverride ...string) (*candidate, error) {
	unit := path
	if len(unitOverride) > 0 {
		unit = unitOverride[0]
	}
	if d.cfg.RequireSignature {
		return nil, fmt.Errorf("%s: unsigned artifact refused (discovery.require_signature); add a signed adapter.json pinning it", path)
	}
	sum, _, err := fileSums(ctx, d.h.MaxPluginBytes(), path)
	if err != nil {
		return nil, err
	}
	digest := sum
	if unit != path { // a folder: the files the artifact imports count too
		digest = withCode(sum, codeDigest(ctx, unit, path, d.h.MaxPluginBytes(), path))
	}
	if old != nil && old.digest == digest {
		return nil, errUnchanged
	}
	tl := d.folderTrust(root)
	meta := host.ProviderMeta{Source: path, Trust: tl}
	if unit != path {
		meta.Unit = unit
	}
	p, err := d.h.LoadProvider(ctx, path, meta)
	if err != nil {
		return nil, d.loadFailed(ctx, err, path, sum, path)
	}
	if after, _, err := fileSums(ctx, d.h.MaxPluginBytes(), path); err != nil || after != sum {
		_ = host.CloseProvider(p)
		return nil, fmt.Errorf("%s %w", path, errChangedWhileLoading)
	}
	reg := p.Describe()
	if reg == nil {
		_ = host.CloseProvider(p)
		return nil, fmt.Errorf("%s: provider describes no registration", path)
	}
	return &candidate{key: unit, id: reg.Provider.ID, kind: KindArtifact, trust: tl, digest: digest, provider: p}, nil
}

// loadFailed is the error of a load that failed: errChangedWhileLoading
// when files no longer hold what was loaded (sum), since the failure is
// then of bytes that are gone (a file deleted or rewritten while it
// loaded: git checkout, a save in steps) and the change's own event
// loads the unit again; else err.
func (d *Discovery) loadFailed(ctx context.Context, err error, unit, sum string, files ...string) error {
	if ctx.Err() != nil {
		return err
	}
	if after, _, e := fileSums(ctx, d.h.MaxPluginBytes(), files...); e != nil || after != sum {
		return fmt.Errorf("%s %w (the load failed: %w)", unit, errChangedWhileLoading, err)
	}
	return err
}

// loadDescribed loads a unit described by a card or tool.aios.yaml (desc),
// with an optional artifact.
func (d *Discovery) loadDescribed(ctx context.Context, unit, root, desc, artifact string, old *candidate) (*candidate, error) {
	data, err := readDescription(desc)
	if err != nil {
		return nil, err
	}
	descriptionRead(desc)
	kind := KindCard
	var card *Card
	if ext := filepath.Ext(desc); ext == ".yaml" || ext == ".yml" {
		kind = KindYAML
		card, err = ParseYAML(data, desc)
	} else {
		card, err = ParseCard(data, desc)
	}
	if err != nil {
		return nil, err
	}
	topLevel := unit == desc
	if card.Artifact != nil {
		if topLevel {
			return nil, fmt.Errorf("%s: a card at the top of a plugin folder cannot name an artifact; put the card and %s in their own folder", desc, card.Artifact.Path)
		}
		artifact = filepath.Join(unit, filepath.FromSlash(card.Artifact.Path))
		if _, err := os.Stat(artifact); err != nil {
			return nil, fmt.Errorf("%s: artifact.path: %v", desc, err)
		}
		if _, ok := d.h.LoaderFor(artifact); !ok {
			return nil, fmt.Errorf("%s: artifact %s has no loader (known extensions: %s)", desc, card.Artifact.Path, strings.Join(d.h.Extensions(), " "))
		}
	}
	files := []string{desc}
	if artifact != "" {
		files = append(files, artifact)
		// The other files the card pins are part of the unit's code: a
		// change to one reloads it (and is refused when the card is
		// signed and the digest differs).
		for _, f := range card.Artifact.FileNames() {
			files = append(files, filepath.Join(unit, filepath.FromSlash(f)))
		}
	}
	sum, sums, err := fileSums(ctx, d.h.MaxPluginBytes(), files...)
	if err != nil {
		return nil, err
	}
	if h := sha256.Sum256(data); sums[0] != hex.EncodeToString(h[:]) {
		// The card was replaced since it was read: the digest must
		// describe the card verified below, not the one now on disk
		// (TestCardSwappedAfterReadNotTrackedAsLoaded).
		return nil, fmt.Errorf("%s %w", desc, errChangedWhileLoading)
	}
	digest := sum
	if !topLevel && artifact != "" { // a folder: the files the artifact imports count too
		digest = withCode(sum, codeDigest(ctx, unit, artifact, d.h.MaxPluginBytes(), files...))
	}
	if old != nil && old.digest == digest {
		if old.verified == nil {
			return nil, errUnchanged
		}
		// Unchanged, but is its signer still trusted, and as much? A key
		// removed from its JWKS, expired or replaced must not keep
		// vouching for a provider loaded while it was valid; one that
		// left the Verified set but is still in a Community one vouches
		// at Community: the unit is loaded again below, at that level.
		v, err := d.recheck(ctx, card.Raw)
		if err != nil {
			return nil, fmt.Errorf("%s: refused: %w", desc, err)
		}
		// Its key's validity counts too: a key given an exp since (in
		// its jwks file) must unload the unit once it passes, and
		// retryKeyUnits reads the expiry of the verification loaded.
		if v.Trust == old.verified.Trust && v.KeyExpires.Equal(old.verified.KeyExpires) {
			return nil, errUnchanged
		}
	}
	cand := &candidate{key: unit, id: card.Adapter.ID, kind: kind, card: card, digest: digest, trust: d.folderTrust(root)}
	// Signature (§3.1 step 5).
	v, err := trust.VerifyCard(ctx, card.Raw, d.keys)
	switch {
	case err == nil:
		cand.verified = v
		cand.trust = max(cand.trust, v.Trust)
		if artifact != "" {
			if v.Artifact == nil {
				rel, err := filepath.Rel(unit, artifact)
				if err != nil {
					rel = filepath.Base(artifact)
				}
				return nil, fmt.Errorf("%s: refused: the card is signed but does not pin its artifact %s: add \"artifact\": {\"path\": %q} to the card and sign it again with `aios-host sign`, which pins the file and the code beside it", desc, rel, filepath.ToSlash(rel))
			}
			// The signed pin decides (the parsed card's list was read
			// before the signature was checked; they are the same card).
			if !slices.Equal(v.Artifact.FileNames(), card.Artifact.FileNames()) {
				return nil, fmt.Errorf("%s: refused: the signed artifact.files differ from the card's", desc)
			}
			if err := checkPins(v.Artifact, sums, true); err != nil {
				return nil, fmt.Errorf("%s: refused: %w", desc, err)
			}
		}
	case errors.Is(err, trust.ErrUnsigned):
		if d.cfg.RequireSignature {
			return nil, fmt.Errorf("%s: unsigned card refused (discovery.require_signature)", desc)
		}
		// An unsigned card vouches for nothing, but the digests it states
		// are still its word on the code: a file that differs is not the
		// code it describes.
		// (An unsigned card may leave sha256 out.)
		if a := card.Artifact; artifact != "" && a != nil {
			if err := checkPins(a, sums, a.SHA256 != ""); err != nil {
				return nil, fmt.Errorf("%s: refused (unsigned card): %w", desc, err)
			}
		}
	default:
		return nil, fmt.Errorf("%s: refused: %w", desc, err)
	}
	if ov, ok := d.override(card.Adapter.ID); ok && ov.Disabled {
		// Skipped at load, as the config says: its code does not run.
		d.h.NoteDisabled(card.Adapter.ID)
		return nil, fmt.Errorf("%s: provider %s is disabled by providers.%s.disabled in the config", desc, card.Adapter.ID, card.Adapter.ID)
	}
	switch {
	case artifact != "":
		// The card renames the provider and may say what it asks for
		// (BindCard): the runtime's sandbox follows those grants.
		meta := host.ProviderMeta{Source: artifact, Trust: cand.trust, Unit: unit, ProviderID: card.Adapter.ID}
		if card.Requirements != nil && card.Requirements.Capabilities != nil {
			meta.Capabilities = card.Requirements.Capabilities
		}
		if cand.verified != nil {
			meta.Pinned = cand.verified.Artifact.Pins(unit)
		}
		p, err := d.h.LoadProvider(ctx, artifact, meta)
		if err != nil {
			return nil, d.loadFailed(ctx, err, unit, sum, files...)
		}
		if after, _, err := fileSums(ctx, d.h.MaxPluginBytes(), files...); err != nil || after != sum {
			_ = host.CloseProvider(p)
			return nil, fmt.Errorf("%s %w", unit, errChangedWhileLoading)
		}
		bound, err := BindCard(p, card)
		if err != nil {
			_ = host.CloseProvider(p)
			return nil, fmt.Errorf("%s: %w", desc, err)
		}
		if cp, ok := bound.(*cardProvider); ok {
			cp.gate = d.softwareGate(card, cand.kind, cand.trust)
		}
		cand.provider = bound
	case card.Endpoints != nil && (card.Endpoints.RPC != "" || card.Endpoints.HTTP != ""):
		ep := card.Endpoints.RPC
		if ep == "" {
			ep = strings.TrimRight(card.Endpoints.HTTP, "/") + "/rpc"
		}
		if err := d.checkEndpoints(desc, unit, card.Adapter.ID, cand.trust, card, ep, ""); err != nil {
			return nil, err
		}
		if err := d.checkLocalSocket(desc, unit, card.Adapter.ID, cand.trust, ep); err != nil {
			return nil, err
		}
		p, err := NewRemoteProvider(card, ep, "", nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", desc, err)
		}
		if w := d.warnAuth(desc, card, ep, "", false); w != "" {
			cand.warnings = []string{w}
		}
		p.gate = d.softwareGate(card, cand.kind, cand.trust)
		cand.provider = p
	default:
		return nil, fmt.Errorf("%s: the card names neither an artifact (put one beside it) nor endpoints.rpc/http%w", desc, errNoArtifact)
	}
	return cand, nil
}

// softwareGate is the call gate of card's requirements.software, detected
// as aios/registry.search and info detect it (server.detectSoftware).
func (d *Discovery) softwareGate(card *Card, kind string, tl abi.TrustLevel) *softwareGate {
	return newSoftwareGate(card, DetectOptions{DesktopDirs: d.cfg.DesktopDirs, RunVersion: d.cfg.VersionCommandAllowed(kind, tl)})
}

func (d *Discovery) desktopDirs() []string {
	var out []string
	for _, r := range d.roots {
		if d.isDesk[r] {
			out = append(out, r)
		}
	}
	return out
}

// loadDesktop matches a .desktop entry to a known adapter (§3.1 step 4).
func (d *Discovery) loadDesktop(path string, old *candidate) (*candidate, error) {
	data, err := readDescription(path)
	if err != nil {
		return nil, err
	}
	e, err := ParseDesktop(data, filepath.Base(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Dir(path), err)
	}
	card := d.lib.Match(e)
	if card == nil {
		return nil, nil
	}
	if d.cfg.RequireSignature {
		// A known adapter's card is built in and unsigned; a .desktop
		// file anyone of the host's user can write would register its
		// tools (TestDesktopUnderRequireSignature).
		d.note(slog.LevelInfo, path, "unsigned", "known adapter matched but not loaded: its built-in card is unsigned and discovery.require_signature refuses unsigned cards; to use it, sign a copy of the card (aios-host sign) and put it in a plugin folder", "desktop", path, "adapter", card.Adapter.ID)
		return nil, nil
	}
	dirs := append(d.desktopDirs(), filepath.Dir(path))
	det := DetectWith(card.Requirements.Software, DetectOptions{DesktopDirs: dirs, RunVersion: d.cfg.VersionCommandAllowed(KindDesktop, abi.Untrusted)})
	if !det.Installed {
		d.log.Info("known adapter matched but its software is not installed", "desktop", path, "adapter", card.Adapter.ID, "reason", det.Reason)
		return nil, nil
	}
	sum := sha256.Sum256(append(data, card.Raw...))
	digest := hex.EncodeToString(sum[:])
	if old != nil && old.digest == digest {
		return nil, errUnchanged
	}
	if err := d.checkEndpoints(path, path, card.Adapter.ID, abi.Untrusted, card, card.Endpoints.RPC, ""); err != nil {
		return nil, err
	}
	p, err := NewRemoteProvider(card, card.Endpoints.RPC, "", nil)
	if err != nil {
		return nil, err
	}
	// Found installed; its calls are refused if it is removed later.
	p.gate = newSoftwareGate(card, DetectOptions{DesktopDirs: dirs, RunVersion: d.cfg.VersionCommandAllowed(KindDesktop, abi.Untrusted)})
	return &candidate{key: path, id: card.Adapter.ID, kind: KindDesktop, card: card, trust: abi.Untrusted,
		digest: digest, provider: p, detected: &det}, nil
}

// checkEndpoints checks with checkEndpoint every URL a remote adapter's
// card makes the host reach: the endpoint its calls go to, its
// endpoints.http and its health URL (probed every HealthInterval). URLs on
// host allowed (the configured remote's own host: the user's word) pass.
func (d *Discovery) checkEndpoints(desc, source, id string, tl abi.TrustLevel, card *Card, endpoint, allowed string) error {
	urls := []string{endpoint}
	if e := card.Endpoints; e != nil && e.HTTP != "" {
		urls = append(urls, e.HTTP)
	}
	if h := healthEndpoint(card, endpoint); h != "" {
		urls = append(urls, h)
	} else if e := card.Endpoints; e != nil && e.Health != "" {
		// A path is joined to an http(s) endpoint; without one it was
		// never probed, without a word (the built-in cards declared
		// /health beside a unix socket alone).
		d.log.Info("adapter's endpoints.health is not probed: a path needs endpoints.http or an http(s) rpc endpoint to be joined to",
			"adapter", id, "health", e.Health, "source", source)
	}
	for _, u := range urls {
		if pu, err := url.Parse(u); err == nil && allowed != "" && strings.EqualFold(pu.Hostname(), allowed) {
			continue
		}
		if err := d.checkEndpoint(desc, source, id, tl, u); err != nil {
			return err
		}
	}
	return nil
}

// checkEndpoint refuses a card whose calls would go to endpoint over the
// network when its provider may not reach that host: Network(host) must be
// within the caps of its trust level (trust.caps; providers.<id>.trust
// sets the level, providers.<id>.grants narrows it), as for any provider
// reaching the network. A unix:// socket is local and needs nothing.
func (d *Discovery) checkEndpoint(desc, source, id string, tl abi.TrustLevel, endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "tcp") {
		return nil
	}
	h, err := abi.NetworkHost(u.Hostname())
	if err != nil {
		return fmt.Errorf("%s: endpoint %s: %v", desc, endpoint, err)
	}
	want := abi.Capability{Kind: abi.CapNetwork, Arg: h, HasArg: true}
	level, caps := d.providerCaps(id, source, tl)
	if caps.Allows(want) {
		return nil
	}
	var ok []string
	for l := abi.Untrusted; l <= abi.System; l++ {
		if _, c := d.providerCaps(id, source, l); c.Allows(want) && l != level {
			ok = append(ok, l.String())
		}
	}
	how := "no trust level's caps allow it: add " + want.String() + " to trust.caps"
	if len(ok) > 0 {
		how = "levels that allow it: " + strings.Join(ok, ", ") + "; sign the card with a key trusted at one of them (discovery.keys), " +
			"or give its folder one (trust.folders), or set providers." + id + ".trust"
	}
	if _, hasOv := d.override(id); hasOv {
		how += " (providers." + id + ".grants, when set, must allow it too)"
	}
	return fmt.Errorf("%s: refused: its endpoint %s would make this host send requests (calls and their arguments, or health probes) to %s, "+
		"but provider %s at trust %s may not hold %s (trust.caps.%s); %s",
		desc, endpoint, h, id, level, want, level, how)
}

// checkLocalSocket refuses a plugin-folder card whose calls would go to a
// unix:// socket when its provider may not hold Network(localhost), as an
// http endpoint on 127.0.0.1 needs. The host connects to the socket as its
// own user, and whatever listens there takes it for that user: another
// aios-host's socket, for one, serves a peer of its uid as the default
// agent cli with every grant, so an unsigned card could drive that host's
// tools with grants it was never given (TestUnixEndpointNeedsLocalNetwork).
// The built-in known adapters (loadDesktop) are compiled in and exempt.
func (d *Discovery) checkLocalSocket(desc, source, id string, tl abi.TrustLevel, endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "unix" {
		return nil
	}
	want := abi.Capability{Kind: abi.CapNetwork, Arg: "localhost", HasArg: true}
	level, caps := d.providerCaps(id, source, tl)
	if caps.Allows(want) {
		return nil
	}
	return fmt.Errorf("%s: refused: its endpoint %s is a local socket, which this host would connect to as its own user "+
		"(another aios-host's registry there serves that user with every grant), but provider %s at trust %s may not hold %s (trust.caps.%s); "+
		"sign the card with a trusted key (discovery.keys), vouch for its folder (trust.folders) or set providers.%s.trust",
		desc, endpoint, id, level, want, level, id)
}

// override returns the config's providers.<id> entry.
func (d *Discovery) override(id string) (config.ProviderOverride, bool) {
	if d.hcfg == nil {
		return config.ProviderOverride{}, false
	}
	o, ok := d.hcfg.Providers[id]
	return o, ok
}

// providerCaps is the most the host grants provider id at level tl, as the
// host's trust policy computes it: the level's caps (trust.caps, else the
// defaults; providers.<id>.trust replaces the level) narrowed by
// providers.<id>.grants when set.
func (d *Discovery) providerCaps(id, source string, tl abi.TrustLevel) (abi.TrustLevel, abi.Grants) {
	ov, hasOv := d.override(id)
	if hasOv && ov.Trust != "" && ov.TrustAppliesTo(source) {
		if l, err := abi.ParseTrustLevel(ov.Trust); err == nil {
			tl = l
		}
	}
	if tl < abi.Untrusted || tl > abi.System {
		tl = abi.Untrusted
	}
	caps, ok := []string(nil), false
	if d.hcfg != nil {
		caps, ok = d.hcfg.TrustCapsOf(tl)
	}
	if !ok {
		caps = config.DefaultTrustCaps()[tl.String()]
	}
	g, err := abi.ParseGrants(caps)
	if err != nil {
		return tl, nil
	}
	if hasOv && ov.Grants != nil {
		og, err := abi.ParseGrants(ov.Grants)
		if err != nil {
			return tl, nil
		}
		g = abi.Intersect(g, og)
	}
	return tl, g
}

// Adapters lists what discovery knows, sorted by id, the serving
// description first (see better).
func (d *Discovery) Adapters() []Adapter {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Adapter, 0, len(d.cands)+len(d.orphans))
	all := make([]*candidate, 0, len(d.cands)+len(d.orphans))
	for _, c := range d.cands {
		all = append(all, c)
	}
	for _, o := range d.orphans {
		if o.cand.active {
			all = append(all, o.cand)
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].id != all[j].id {
			return all[i].id < all[j].id
		}
		return d.better(all[i], all[j])
	})
	for _, c := range all {
		a := Adapter{ID: c.id, Kind: c.kind, Source: c.key, Card: c.card, Trust: d.servedTrust(c), Active: c.active, Detected: c.detected, Warnings: c.warnings}
		if c.verified != nil {
			a.Signed, a.KeyID = true, c.verified.KeyID
		}
		if !c.active {
			if w := d.active[c.id]; w != nil {
				a.Shadowed = w.key
			}
		}
		if e, ok := d.errs[c.key]; ok {
			a.Err = e
		}
		out = append(out, a)
	}
	return out
}

// Adapter returns the active description of provider id.
func (d *Discovery) Adapter(id string) (Adapter, bool) {
	for _, a := range d.Adapters() {
		if a.ID == id && a.Active {
			return a, true
		}
	}
	return Adapter{}, false
}

// Errors lists units that failed to load, by file.
func (d *Discovery) Errors() map[string]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]string, len(d.errs))
	for k, v := range d.errs {
		out[k] = v
	}
	return out
}

// untilStop returns ctx ended also by Close (d.stop), and its cancel.
func (d *Discovery) untilStop(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-d.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
