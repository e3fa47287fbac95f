package sealed

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// wazero's file cache (wazero.NewCompilationCacheWithDir) checks a CRC of
// an entry's machine code but not the header in front of it: a damaged
// function offset made a module run code from the wrong address and the
// host died of SIGSEGV, and a damaged function count made it allocate
// gigabytes. Its entries cannot be told apart (their names hash the
// module with the CPU's features, inside wazero), so CheckWazero checks
// them all, each once per process, and SealWazero seals each new one in
// place: the seal follows what wazero reads, which it ignores.

// wazeroSeen holds the entries this process checked or sealed, by path,
// with the file they were then: an entry replaced or changed since is
// checked again.
var wazeroSeen = struct {
	sync.Mutex
	m map[string]fileID
}{m: map[string]fileID{}}

type fileID struct {
	size int64
	mod  time.Time
}

func idOf(fi os.FileInfo) fileID { return fileID{size: fi.Size(), mod: fi.ModTime()} }

// wazeroEntries calls fn with the path and info (Lstat) of each entry of
// the wazero file cache in dir (dir/wazero-*/*, not wazero's temporary
// files nor folders).
func wazeroEntries(dir string, fn func(path string, fi os.FileInfo)) {
	tops, _ := os.ReadDir(dir) // not a Glob: dir may hold its metacharacters
	for _, top := range tops {
		if !top.IsDir() || !strings.HasPrefix(top.Name(), "wazero-") {
			continue
		}
		sub := filepath.Join(dir, top.Name())
		ents, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() || strings.HasSuffix(e.Name(), ".tmp") {
				continue
			}
			if fi, err := e.Info(); err == nil {
				fn(filepath.Join(sub, e.Name()), fi)
			}
		}
	}
}

// CheckWazero removes from the wazero file cache in dir every entry that
// is not sealed for its name (damaged, cut, moved from another name, or
// written before entries were sealed and not sealed since) or is not a
// regular file (a FIFO, a link), so that wazero
// compiles the module again instead of running it, and returns the paths
// removed. Entries this process checked or sealed and unchanged since are
// not read again.
func CheckWazero(dir string) (removed []string) {
	if dir == "" {
		return nil
	}
	present := map[string]bool{}
	defer func() {
		// Forget the entries that are gone (pruned), so that the map
		// stays as large as the cache.
		wazeroSeen.Lock()
		for p := range wazeroSeen.m {
			if filepath.Dir(filepath.Dir(p)) == filepath.Clean(dir) && !present[p] {
				delete(wazeroSeen.m, p)
			}
		}
		wazeroSeen.Unlock()
	}()
	wazeroEntries(dir, func(p string, fi os.FileInfo) {
		present[p] = true
		if !fi.Mode().IsRegular() {
			// wazero makes only files: a FIFO would hold its open(2)
			// (and the load) forever, a link may lead anywhere.
			if os.Remove(p) == nil {
				removed = append(removed, p)
			}
			return
		}
		id := idOf(fi)
		wazeroSeen.Lock()
		seen, ok := wazeroSeen.m[p]
		wazeroSeen.Unlock()
		if ok && seen == id {
			return
		}
		if _, err := ReadFile(p, []byte(filepath.Base(p))); err != nil {
			if os.Remove(p) == nil {
				removed = append(removed, p)
			}
			return
		}
		wazeroSeen.Lock()
		wazeroSeen.m[p] = id
		wazeroSeen.Unlock()
	})
	return removed
}

// SealWazero seals the entries of the wazero file cache in dir that have
// no seal yet (those a compilation just wrote): call it after compiling
// through the cache. Errors are ignored (an entry left unsealed is
// compiled again by the next CheckWazero's caller).
func SealWazero(dir string) {
	if dir == "" {
		return
	}
	wazeroEntries(dir, func(p string, fi os.FileInfo) {
		if !fi.Mode().IsRegular() {
			return
		}
		wazeroSeen.Lock()
		seen, ok := wazeroSeen.m[p]
		wazeroSeen.Unlock()
		if ok && seen == idOf(fi) {
			return
		}
		if hasTrailer(p, fi.Size()) {
			// Sealed by another process (or by this one, then changed):
			// CheckWazero checks it (sealing it again would bless damage).
			return
		}
		b, err := os.ReadFile(p) // written by wazero since the last check
		if err != nil || WriteFile(p, b, []byte(filepath.Base(p))) != nil {
			return
		}
		if fi, err := os.Stat(p); err == nil {
			wazeroSeen.Lock()
			wazeroSeen.m[p] = idOf(fi)
			wazeroSeen.Unlock()
		}
	})
}

// hasTrailer reports whether the file at p of size bytes ends with a
// seal's trailer (one small read: a compiler process, which has checked
// nothing, reads only the ends of the entries it finds).
func hasTrailer(p string, size int64) bool {
	if size < int64(len(trailer)) {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(trailer))
	_, err = f.ReadAt(b, size-int64(len(trailer)))
	return err == nil && string(b) == trailer
}
