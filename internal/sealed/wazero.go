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
	ino  uint64 // 0 where unknown
}

func idOf(fi os.FileInfo) fileID { return fileID{size: fi.Size(), mod: fi.ModTime(), ino: inode(fi)} }

// forget drops p from wazeroSeen: a new file wazero writes there (maybe
// with the inode number of the removed one) is a new entry to seal.
func forget(p string) {
	wazeroSeen.Lock()
	delete(wazeroSeen.m, p)
	wazeroSeen.Unlock()
}

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

// CheckWazero is CheckWazeroReport's list of the entries removed.
func CheckWazero(dir string) (removed []string) { return CheckWazeroReport(dir).Removed }

// WazeroCheck is what CheckWazeroReport did.
type WazeroCheck struct {
	// Removed lists the entries removed.
	Removed []string
	// Stuck lists the entries that had to go but could not be removed (a
	// cache folder the host may not write): wazero would read them (run
	// damaged code, open a FIFO), so the caller must not compile through
	// the cache while any stays. Err says why the first could not go.
	Stuck []string
	Err   error
}

// CheckWazeroReport removes from the wazero file cache in dir every entry
// that is not sealed for its name (damaged, cut, moved from another name,
// or written before entries were sealed and not sealed since) or is not a
// regular file (a FIFO, a link), so that wazero compiles the module again
// instead of running it, and reports the paths removed and those it could
// not remove. Entries this process checked or sealed and unchanged since
// are not read again. An entry with no seal may be one a compilation in
// progress (BeginWazero) wrote and has not sealed yet: it waits for the
// compilations in progress on dir to end before removing it.
func CheckWazeroReport(dir string) (res WazeroCheck) {
	if dir == "" {
		return res
	}
	drop := func(p string) {
		switch err := os.Remove(p); {
		case err == nil:
			forget(p)
			res.Removed = append(res.Removed, p)
		case os.IsNotExist(err): // gone meanwhile (pruned)
			forget(p)
		default:
			res.Stuck = append(res.Stuck, p)
			if res.Err == nil {
				res.Err = err
			}
		}
	}
	// One check of dir at a time: two first loads would otherwise both
	// read every entry; the second finds them checked.
	st := dirState(dir)
	st.check.Lock()
	defer st.check.Unlock()
	present := map[string]bool{}
	var unsealed []string
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
			drop(p)
			return
		}
		id := idOf(fi)
		wazeroSeen.Lock()
		seen, ok := wazeroSeen.m[p]
		wazeroSeen.Unlock()
		if ok && seen == id {
			return
		}
		if onRead != nil {
			onRead(p)
		}
		if _, err := ReadFile(p, []byte(filepath.Base(p))); err != nil {
			if !hasTrailer(p, fi.Size()) {
				// No seal at all: damaged or cut, or just written by a
				// compilation in progress that has not sealed it yet.
				unsealed = append(unsealed, p)
			} else {
				drop(p)
			}
			return
		}
		wazeroSeen.Lock()
		wazeroSeen.m[p] = id
		wazeroSeen.Unlock()
	})
	if len(unsealed) == 0 {
		return res
	}
	// The compilations in progress on dir (this process's and, where
	// the file system has flock, other processes') seal what they wrote
	// before they end: the entries still unsealed when none is in
	// progress are damaged (or older than sealing).
	release := waitCompiles(dir)
	defer release()
	for _, p := range unsealed {
		fi, err := os.Lstat(p)
		if err != nil {
			continue // pruned, or removed by wazero
		}
		if fi.Mode().IsRegular() {
			if _, err := ReadFile(p, []byte(filepath.Base(p))); err == nil {
				wazeroSeen.Lock()
				wazeroSeen.m[p] = idOf(fi)
				wazeroSeen.Unlock()
				continue
			}
		}
		drop(p)
	}
	return res
}

// wazeroWait bounds how long CheckWazero waits for the compilations in
// progress on a directory to seal their entries; then it removes the
// unsealed ones all the same (their modules are compiled again). A
// variable for tests.
var wazeroWait = 30 * time.Second

// onWait, when set (tests), runs when CheckWazero starts waiting;
// onRead before it reads an entry to check its seal.
var onWait, onRead func(string)

// wazeroDirs holds the state of this process for each cache directory
// (filepath.Clean'd), a *wazeroDir.
var wazeroDirs sync.Map

type wazeroDir struct {
	check sync.Mutex // held by CheckWazero
	// compiling is read-held by each compilation in progress on the
	// directory (BeginWazero to its end), and held by CheckWazero while
	// it removes the entries that no compilation will seal.
	compiling sync.RWMutex
}

func dirState(dir string) *wazeroDir {
	st, _ := wazeroDirs.LoadOrStore(filepath.Clean(dir), &wazeroDir{})
	return st.(*wazeroDir)
}

// BeginWazero marks a compilation through the wazero file cache in dir as
// in progress, until the function it returns is called (after SealWazero,
// or after a failure): CheckWazero does not remove an entry that is not
// sealed yet while a compilation is in progress on dir, in this process
// or (through an advisory lock on dir/wazero.lock, where the file system
// has flock) in another; it waits for them to end, then removes the
// entries still unsealed. Call CheckWazero before BeginWazero, not
// between it and its end (it would wait for itself for wazeroWait).
func BeginWazero(dir string) (end func()) {
	if dir == "" {
		return func() {}
	}
	st := dirState(dir)
	st.compiling.RLock()
	unlock := lockShared(dir)
	var once sync.Once
	return func() {
		once.Do(func() {
			unlock()
			st.compiling.RUnlock()
		})
	}
}

// waitCompiles waits until no compilation is in progress on dir (or for
// wazeroWait at most) and keeps new ones from starting until release is
// called.
func waitCompiles(dir string) (release func()) {
	if onWait != nil {
		onWait(dir)
	}
	st := dirState(dir)
	deadline := time.Now().Add(wazeroWait)
	for d := time.Millisecond; ; d = min(2*d, 50*time.Millisecond) {
		if st.compiling.TryLock() {
			if unlock, ok := tryLockExclusive(dir); ok {
				return func() {
					unlock()
					st.compiling.Unlock()
				}
			}
			st.compiling.Unlock()
		}
		if time.Now().After(deadline) {
			return func() {}
		}
		time.Sleep(d)
	}
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
		id := idOf(fi)
		if ok && seen == id {
			return
		}
		if ok && id.ino != 0 && id.ino == seen.ino {
			// Changed in place since it was checked or sealed (cut, say):
			// wazero writes an entry as a new file renamed into place, so
			// this is damage, which CheckWazero removes (even while it
			// waits for this compilation to seal what it wrote).
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
