package wasm

import (
	"cmp"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aios-host/aios-host/internal/sealed"
)

// MaxCacheBytes bounds the compile cache directory: past it, the oldest
// files go first when a loader starts, and again after every pruneEvery
// modules it compiles while it runs. Every version of a module compiled
// while plugins are developed leaves its code here (a 4 MB Go guest leaves
// about 21 MB), and nothing else removes it.
const MaxCacheBytes = 2 << 30

// pruneEvery is how many new compilations a running loader makes between
// two prunings of its cache: a host that runs for weeks while a plugin is
// rewritten and reloaded hundreds of times compiled every version into the
// cache, and pruning only at start let it grow without bound until the
// next restart. A variable for tests.
var pruneEvery = 8

// cacheBound is the bound a running loader prunes its cache to
// (MaxCacheBytes; smaller in tests).
var cacheBound int64 = MaxCacheBytes

// freshTemp is how old a compile cache's temporary file (wazero writes
// "<entry>.<random>.tmp" and renames it) must be before a pruning may
// remove it: a younger one may be written now by a concurrent compile,
// which would then fail.
const freshTemp = time.Minute

// PruneCache is pruneCache for the other compile caches of the host (the
// component runtime's, data/cache/component), run by the host when its
// loaders start: the same rules, the same bound (max).
func PruneCache(dir string, max int64, log *slog.Logger) { pruneCache(dir, max, log) }

// dirCompiles counts, per cache directory, the compilations NoteCompiled
// was told of since it last pruned the directory.
var dirCompiles struct {
	sync.Mutex
	n map[string]int
}

// NoteCompiled is for the runtimes that keep compiled code in a cache
// directory (the core-module loaders here, the component runtimes in
// <data>/cache/component): call it after each compilation written to dir; every pruneEvery of them
// it prunes dir as a running loader prunes its own (to MaxCacheBytes), so
// that a host left running while a component is rewritten does not grow
// the directory until its next start.
func NoteCompiled(dir string, log *slog.Logger) { noteCompiled(dir, 1, log) }

// noteCompiled is NoteCompiled for n compilations; the core-module loaders
// of both engines count theirs here too, so a directory has one count.
func noteCompiled(dir string, n int, log *slog.Logger) {
	if dir == "" || n <= 0 {
		return
	}
	dirCompiles.Lock()
	if dirCompiles.n == nil {
		dirCompiles.n = map[string]int{}
	}
	dirCompiles.n[dir] += n
	due := dirCompiles.n[dir] >= pruneEvery
	if due {
		delete(dirCompiles.n, dir)
	}
	dirCompiles.Unlock()
	if due {
		pruneCache(dir, cacheBound, log)
	}
}

// pruneCache removes what no loader of this build reads any more (the
// instrumented modules of an older rewrite, code compiled by another
// wazero version, wasmtime entries from before they were sealed), then
// the oldest files until dir holds at most max bytes. It runs when a
// loader starts; errors are ignored (the cache is an optimisation).
func pruneCache(dir string, max int64, log *slog.Logger) {
	if dir == "" {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	wazeroDir := "wazero-" + wazeroVersion() + "-"
	removed := 0
	for _, e := range ents {
		n := e.Name()
		stale := false
		switch {
		case strings.HasPrefix(n, "aios-instrumented-") && n != instrumentedDir:
			stale = true
		case strings.HasPrefix(n, "wazero-") && e.IsDir() && wazeroVersion() != "" && !strings.HasPrefix(n, wazeroDir):
			stale = true
		case strings.HasPrefix(n, "wasmtime-") && strings.HasSuffix(n, ".cwasm") && !strings.Contains(n, "-sealed-"):
			stale = true
		}
		if stale && os.RemoveAll(filepath.Join(dir, n)) == nil {
			removed++
		}
	}
	type file struct {
		path string
		size int64
		mod  int64
	}
	var files []file
	var total int64
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
			if p == filepath.Join(dir, "wazero.lock") {
				return nil // held by compilations in progress (internal/sealed)
			}
			if strings.HasSuffix(p, ".tmp") && time.Since(info.ModTime()) < freshTemp {
				return nil // being written by a compile in flight
			}
			files = append(files, file{p, info.Size(), info.ModTime().UnixNano()})
			total += info.Size()
		}
		return nil
	})
	if total > max {
		slices.SortFunc(files, func(a, b file) int { return cmp.Compare(a.mod, b.mod) })
		for _, f := range files {
			if total <= max {
				break
			}
			if os.Remove(f.path) == nil {
				total -= f.size
				removed++
			}
		}
	}
	if removed > 0 && log != nil {
		log.Info("wasm: compile cache pruned", "cache", dir, "removed", removed, "bytes_left", total)
	}
}

// wazeroVersion is the wazero module version this binary was built with
// ("" when unknown, as in test binaries: then no wazero directory counts
// as stale). A variable for tests.
var wazeroVersion = func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range bi.Deps {
		if d.Path == "github.com/tetratelabs/wazero" {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return ""
}

// CheckCache removes the entries of the wazero file cache in dir that are
// not sealed (internal/sealed.CheckWazero: damaged, cut, or unsealed),
// saying so at Warn, so that wazero compiles their modules again instead
// of running damaged code; call it before compiling through the cache,
// and sealed.SealWazero after. For the component runtime's cache. An
// error says such an entry could not be removed (a folder the host may
// not write): wazero would read it, so do not compile through the cache.
func CheckCache(dir string, log *slog.Logger) error { return checkCache(dir, log) }

func checkCache(dir string, log *slog.Logger) error {
	res := sealed.CheckWazeroReport(dir)
	if removed := res.Removed; len(removed) > 0 && log != nil {
		log.Warn("wasm: compile cache entries that were damaged (or not sealed) removed; their modules are compiled again",
			"cache", dir, "removed", len(removed), "first", filepath.Base(removed[0]))
	}
	if n := len(res.Stuck); n > 0 {
		what := "a compile cache entry that is damaged (or not sealed, or not a file) cannot be removed"
		if n > 1 {
			what = fmt.Sprintf("%d compile cache entries that are damaged (or not sealed, or not files) cannot be removed; the first", n)
		}
		return fmt.Errorf("%s: %v; wazero would read it, so the cache is not used (remove the entries of the folder, or make it writable)", what, res.Err)
	}
	return nil
}
