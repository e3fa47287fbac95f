// Package space is the Space storage of aios-host: an embedded, on-disk,
// content-addressed object store. Objects live in named spaces under one root
// directory; an object's id is the SHA-256 digest of its content
// ("sha256:" + 64 lower-case hex digits), so writing the same bytes twice
// stores them once and a reader can always check what it got.
//
// Layout on disk:
//
//	<root>/<space>/<hex[0:2]>/<hex[2:64]>   one file per object
//	<root>/.tmp/                            temporary files of Puts in flight
//
// Put writes a temporary file, fsyncs it, renames it into place and fsyncs the
// directory, so an object is either absent or complete. Get re-hashes what it
// reads and refuses corrupted objects.
//
// Capability checks (ReadSpace/WriteSpace) are the host's job; this package
// only guarantees that no id or space name can reach outside the root.
//
// space imports only the standard library and internal/fsperm (itself
// standard library only); it must never import host, registry, runtimes or
// cmd.
package space

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/aios-host/aios-host/internal/fsperm"
)

// IDPrefix starts every ObjectId.
const IDPrefix = "sha256:"

// IDLen is the length of a valid ObjectId: the prefix and 64 hex digits.
const IDLen = len(IDPrefix) + 64

// DefaultMaxObjectBytes bounds one object unless WithMaxObjectSize says
// otherwise: 256 MiB.
const DefaultMaxObjectBytes = 256 << 20

// Errors returned by the store; test with errors.Is. The host maps
// ErrNotFound to NotFound, ErrInvalid to InvalidParams, ErrTooLarge and
// ErrFull to TooLarge and ErrCorrupt to Internal.
var (
	ErrNotFound = errors.New("object not found")
	ErrInvalid  = errors.New("invalid object id or space name")
	ErrTooLarge = errors.New("object too large")
	ErrCorrupt  = errors.New("object content does not match its id")
	// ErrFull: the object would pass its space's quota
	// (WithMaxSpaceBytes) or leave less free disk than the reserve
	// (WithMinFreeBytes), or the disk was full when it was written
	// (ENOSPC, or EDQUOT: the file system's quota; ERROR_DISK_FULL on
	// Windows).
	ErrFull = errors.New("no room")
)

const tmpDir = ".tmp"

// Store is an opened object store. It is safe for concurrent use by many
// goroutines and by several processes sharing the root (renames are atomic).
type Store struct {
	root     string
	maxBytes int64
	// maxSpace is each space's quota in bytes (0: none); minFree the
	// free bytes a Put must leave on the store's file system (0: none).
	maxSpace, minFree int64

	usageMu sync.Mutex
	usage   map[string]int64 // bytes in each space, counted at first use (maxSpace > 0)
	// inflight are the bytes of Puts reserved and not yet finished, and
	// recountAt when each space may be counted from the disk again
	// (usageMu).
	inflight  map[string]int64
	recountAt map[string]time.Time
	// recounts are the recounts of each space running now, each the
	// bytes of the Puts of the space that finished storing during it
	// (usageMu): its walk may have passed their folder, and they are no
	// longer in flight either.
	recounts map[string][]*int64
	// counting are the spaces being counted for the first time, each
	// closed when its count is done (usageMu).
	counting map[string]chan struct{}
	// counts are how many times each space's usage was set from a count
	// of the disk (usageMu): a Delete whose space was counted after it
	// began gives nothing back, the count has seen the removal.
	counts map[string]uint64

	// objLocks are the objects Puts are storing or Deletes removing now,
	// by path (objMu): a second Put or a Delete of one waits for the first.
	objMu    sync.Mutex
	objLocks map[string]*objectLock

	// swept is when the temporary files of unfinished Puts were last
	// cleaned (sweepMu).
	sweepMu sync.Mutex
	swept   time.Time

	// readOnly: opened ForReading; Put refuses.
	readOnly bool

	// writing are the bytes of the Puts past the min_free_bytes check
	// and not yet finished (freeMu): the disk's free space does not show
	// them yet, and Puts at once each took the room the others were
	// about to use, leaving the disk below the reserve.
	freeMu  sync.Mutex
	writing int64
}

// recountEvery bounds how often a Put refused for the quota counts its
// space from the disk again: at most once a second, and at most a tenth
// of the time (a space of a million objects takes seconds to count).
const recountEvery = time.Second

// Option configures Open.
type Option func(*Store)

// WithMaxObjectSize bounds the size of one object in bytes (n > 0). Put
// refuses larger content with ErrTooLarge; Get refuses to read larger files.
func WithMaxObjectSize(n int64) Option {
	return func(s *Store) {
		if n > 0 {
			s.maxBytes = n
		}
	}
}

// WithMaxSpaceBytes gives every space a quota of n bytes (n > 0): a Put
// that would make the space's objects pass it fails with ErrFull. Usage
// is counted from the disk when a space is first written by this Store
// and kept as Puts and Deletes of this Store go; what another process
// (or a person) adds or removes is seen when a Put would pass the quota:
// the space is then counted from the disk again (at most once a second)
// before the Put is refused, so objects removed by hand make room in a
// running host.
func WithMaxSpaceBytes(n int64) Option {
	return func(s *Store) {
		if n > 0 {
			s.maxSpace = n
		}
	}
}

// WithMinFreeBytes makes a Put fail with ErrFull when it would leave less
// than n bytes free on the store's file system (n > 0): objects cannot
// fill the disk the host's audit log is written to.
func WithMinFreeBytes(n int64) Option {
	return func(s *Store) {
		if n > 0 {
			s.minFree = n
		}
	}
}

// ForReading opens a store only to read it: Open creates nothing (a root
// that does not exist holds no space) and removes no temporary files, so
// a store on a read-only file system or in another user's folder can be
// read; Put refuses.
func ForReading() Option {
	return func(s *Store) { s.readOnly = true }
}

// Open opens (creating if needed) a store rooted at dir.
func Open(dir string, opts ...Option) (*Store, error) {
	if dir == "" {
		return nil, errors.New("space: empty root directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("space: root %q: %w", dir, err)
	}
	s := &Store{root: abs, maxBytes: DefaultMaxObjectBytes}
	for _, o := range opts {
		o(s)
	}
	if s.readOnly {
		// Nothing is made, but a root that cannot be one (a file, or
		// under one) is said here, naming it, as when it is made.
		if st, err := os.Stat(abs); err == nil && !st.IsDir() {
			return nil, fmt.Errorf("space: root %q: not a directory", abs)
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("space: root %q: %w", abs, err)
		} else if err != nil {
			// Not a store holding nothing: a link to nothing (a
			// disk not mounted) holds the spaces somewhere.
			if l := danglingAncestor(abs); l != "" {
				return nil, danglingRootError(abs, l)
			}
		}
		return s, nil
	}
	// A root made here is synced in its parent (and the folders made
	// above it in theirs): the objects fsynced under it could otherwise
	// be lost with its entry in a crash.
	if err := fsperm.MkdirAll(filepath.Join(abs, tmpDir), 0o700, syncDir); err != nil {
		if l := danglingAncestor(abs); l != "" {
			return nil, danglingRootError(abs, l) // mkdir(2) said "file exists"
		}
		return nil, fmt.Errorf("space: create root %q: %w", abs, err)
	}
	s.swept = time.Now()
	removeStaleTemps(filepath.Join(abs, tmpDir), s.swept.Add(-staleTemp))
	return s, nil
}

// danglingAncestor is p or the folder above it nearest to it that exists
// as a name, when that is a link to nothing, or "".
func danglingAncestor(p string) string {
	for q := p; ; q = filepath.Dir(q) {
		if st, err := os.Lstat(q); err == nil {
			if st.Mode()&fs.ModeSymlink == 0 {
				return ""
			}
			if _, err := os.Stat(q); errors.Is(err, fs.ErrNotExist) {
				return q
			}
			return ""
		}
		if filepath.Dir(q) == q {
			return ""
		}
	}
}

// danglingRootError is the error of a store whose root, or a folder
// above it, is the link to nothing l.
func danglingRootError(root, l string) error {
	return fmt.Errorf("space: root %q: %q is a link to a folder that does not exist (moved, or on a disk not mounted?)", root, l)
}

// sweep removes the stale temporary files again when the last sweep was
// staleTemp ago: a file left by a crash shortly before this Store opened
// was too young to go then, and a host that runs for weeks kept it (up to
// max_object_bytes each, eating into min_free_bytes) until its next start.
func (s *Store) sweep() {
	s.sweepMu.Lock()
	now := time.Now()
	due := now.Sub(s.swept) >= staleTemp
	if due {
		s.swept = now
	}
	s.sweepMu.Unlock()
	if due {
		removeStaleTemps(filepath.Join(s.root, tmpDir), now.Add(-staleTemp))
	}
}

// staleTemp is the age past which a temporary file of an unfinished put is
// taken as left by a process that died (kill -9 during a put) and removed
// at Open, and by a Put at most once per staleTemp after it. Another
// process may share the store and be writing one now, so only old ones go.
const staleTemp = time.Hour

// removeStaleTemps removes the put-* files in dir last modified before
// cutoff; errors are ignored (the next Open tries again).
func removeStaleTemps(dir string, cutoff time.Time) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "put-") || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// Root returns the absolute root directory.
func (s *Store) Root() string { return s.root }

// MaxObjectBytes returns the size bound of one object.
func (s *Store) MaxObjectBytes() int64 { return s.maxBytes }

// ID returns the ObjectId of data.
func ID(data []byte) string {
	sum := sha256.Sum256(data)
	return IDPrefix + hex.EncodeToString(sum[:])
}

// ValidateID checks that id is exactly "sha256:" followed by 64 lower-case
// hex digits. Anything else (upper case, other lengths, separators, NUL,
// non-ASCII look-alikes) is refused, so an id can never name a path outside
// its space.
func ValidateID(id string) error {
	if len(id) != IDLen || !strings.HasPrefix(id, IDPrefix) {
		return fmt.Errorf("%w: ObjectId %q: want %q followed by 64 lower-case hex digits", ErrInvalid, clip(id), IDPrefix)
	}
	for i := len(IDPrefix); i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			// A non-ASCII character is named, not its first byte read
			// as Latin-1 ('Ð' for a Cyrillic а).
			switch r, size := utf8.DecodeRuneInString(id[i:]); {
			case c < utf8.RuneSelf:
			case r == utf8.RuneError && size <= 1:
				return fmt.Errorf("%w: ObjectId %q: byte %d (%#x) is not UTF-8, not a lower-case hex digit", ErrInvalid, clip(id), i, c)
			default:
				return fmt.Errorf("%w: ObjectId %q: character %q (U+%04X) at byte %d is not a lower-case hex digit", ErrInvalid, clip(id), r, r, i)
			}
			return fmt.Errorf("%w: ObjectId %q: byte %d (%q) is not a lower-case hex digit", ErrInvalid, clip(id), i, c)
		}
	}
	return nil
}

// ValidateSpaceName checks a space name: 1 to 64 characters from a-z 0-9
// '_' '.' '-', starting with a letter or digit, never containing ".." or
// ending with '.', and no Windows device name (con, nul, aux.txt, com1):
// every name is a folder of its own on every system.
func ValidateSpaceName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty space name", ErrInvalid)
	}
	// Character by character, not byte by byte: a non-ASCII letter was
	// reported as one byte of its UTF-8 read as Latin-1 ('Ã' for "é").
	i := 0
	for off, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '_' || c == '.' || c == '-') && i > 0:
		case c == utf8.RuneError && !strings.HasPrefix(name[off:], string(utf8.RuneError)):
			return fmt.Errorf("%w: space name %q: byte %#x at %d is not UTF-8 (use a-z 0-9 _ . -, starting with a letter or digit)", ErrInvalid, clip(name), name[off], i)
		default:
			char := fmt.Sprintf("%q", c)
			if c >= utf8.RuneSelf {
				char += fmt.Sprintf(" (U+%04X)", c) // a combining mark, a look-alike
			}
			return fmt.Errorf("%w: space name %q: character %s at %d not allowed (use a-z 0-9 _ . -, starting with a letter or digit)", ErrInvalid, clip(name), char, i)
		}
		i++
	}
	// Checked after the characters, which are then ASCII: a byte is a
	// character.
	if len(name) > 64 {
		return fmt.Errorf("%w: space name %q is longer than 64 characters", ErrInvalid, clip(name))
	}
	if strings.Contains(name, "..") {
		return fmt.Errorf("%w: space name %q contains \"..\"", ErrInvalid, name)
	}
	// A space is a folder, and the store's folder may be on Windows (or
	// moved there): Windows drops a final dot, so "docs." would be the
	// folder of "docs" and ReadSpace(docs.) would read it; and a device
	// name (with or without an extension) is no folder at all.
	if strings.HasSuffix(name, ".") {
		return fmt.Errorf("%w: space name %q ends with \".\" (Windows drops it: the folder would be %q's)", ErrInvalid, name, strings.TrimRight(name, "."))
	}
	if base, _, _ := strings.Cut(name, "."); windowsDevice(base) {
		return fmt.Errorf("%w: space name %q: %q is a Windows device name, not a folder", ErrInvalid, name, base)
	}
	return nil
}

// windowsDevice reports whether s (lower case) is a name Windows keeps
// for a device: con, prn, aux, nul, com0-com9, lpt0-lpt9.
func windowsDevice(s string) bool {
	switch s {
	case "con", "prn", "aux", "nul":
		return true
	}
	return len(s) == 4 && (s[:3] == "com" || s[:3] == "lpt") && s[3] >= '0' && s[3] <= '9'
}

// clip shortens s for error messages, cutting before a character, not
// inside one: "aaa…\xc3…" quoted a byte the caller never wrote.
func clip(s string) string {
	if len(s) > 80 {
		n := 80
		for n > 80-utf8.UTFMax+1 && !utf8.RuneStart(s[n]) {
			n-- // at most three bytes back: bytes that are no UTF-8 are cut anywhere
		}
		return s[:n] + "…"
	}
	return s
}

func (s *Store) objectPath(space, id string) (string, error) {
	if err := ValidateSpaceName(space); err != nil {
		return "", err
	}
	if err := ValidateID(id); err != nil {
		return "", err
	}
	h := id[len(IDPrefix):]
	return filepath.Join(s.root, space, h[:2], h[2:]), nil
}

// Put stores data in space and returns its ObjectId. Storing content that is
// already there is a no-op returning the same id. The write is atomic: a
// concurrent reader sees the whole object or none.
func (s *Store) Put(space string, data []byte) (string, error) {
	if s.readOnly {
		return "", fmt.Errorf("space %q: store %s was opened for reading", space, s.root)
	}
	if int64(len(data)) > s.maxBytes {
		return "", fmt.Errorf("%w: %d bytes for space %q exceeds the limit of %d (limits.max_object_bytes)", ErrTooLarge, len(data), space, s.maxBytes)
	}
	id := ID(data)
	p, err := s.objectPath(space, id)
	if err != nil {
		return "", err
	}
	// Another Put of this object may be storing it now: wait for it, then
	// look. Both reserved its size against the quota, so a space with room
	// for it once refused the second, or counted it twice; and a look
	// before the wait found the file the other had renamed into place but
	// not yet made durable (its folder synced), and said it was stored.
	unlock := s.lockObject(p)
	defer unlock()
	if holds(p, data) {
		return id, nil // already stored (a damaged copy is replaced below)
	}
	s.sweep()
	var replaced int64 // a damaged copy's size
	if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
		replaced = st.Size()
	}
	release, err := s.reserve(space, int64(len(data)), replaced)
	if err != nil {
		return "", err
	}
	stored := false
	defer func() { release(stored) }()
	// A folder made here (the space's, the fan-out one) is synced in its
	// parent: fsyncing the fan-out folder alone left the folders' own
	// entries, and so the object, to be lost in a crash.
	dir := filepath.Dir(p)
	if err := fsperm.MkdirAll(dir, 0o700, syncDir); err != nil {
		if l := s.danglingLink(dir); l != "" {
			// mkdir(2) says "file exists" of a link to nothing.
			return "", fmt.Errorf("space %q: store object %s: %s: restore its target, or remove the link", space, id, linkToNothing(l))
		}
		return "", s.putError(space, len(data), "", err)
	}
	tmp, err := os.CreateTemp(filepath.Join(s.root, tmpDir), "put-*")
	if err != nil {
		// The tmp dir may have been removed under us; recreate once.
		if mkErr := os.MkdirAll(filepath.Join(s.root, tmpDir), 0o700); mkErr != nil {
			return "", s.putError(space, len(data), "", err)
		}
		if tmp, err = os.CreateTemp(filepath.Join(s.root, tmpDir), "put-*"); err != nil {
			return "", s.putError(space, len(data), "", err)
		}
	}
	tmpName := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = os.Remove(tmpName)
		}
	}()
	if err := writeTemp(tmp, data); err != nil {
		return "", s.putError(space, len(data), "write object", err)
	}
	if err := tmp.Close(); err != nil {
		return "", s.putError(space, len(data), "close object", err)
	}
	if err := os.Chmod(tmpName, 0o400); err != nil {
		return "", s.putError(space, len(data), "", err)
	}
	// rename is atomic: with two concurrent Puts of the same content, both
	// renames succeed and the file holds the same bytes either way. A
	// Delete that empties the fan-out directory removes it, maybe between
	// the MkdirAll above and here: make it again.
	err = os.Rename(tmpName, p)
	for try := 0; err != nil && errors.Is(err, fs.ErrNotExist) && try < 8; try++ {
		if fsperm.MkdirAll(dir, 0o700, syncDir) != nil {
			break
		}
		err = os.Rename(tmpName, p)
	}
	if err != nil {
		if st, serr := os.Lstat(p); serr == nil && st.IsDir() {
			// rename(2) says only "file exists" (or "is a directory").
			// Where, relative to the store (the message reaches the tool).
			rel, _ := filepath.Rel(s.root, p)
			return "", fmt.Errorf("space %q: store object %s: %s in the store is a folder, not an object file (remove it)", space, id, rel)
		}
		if errors.Is(err, syscall.EXDEV) {
			// The space's folder is a link to another disk: an object
			// is written in the store's .tmp folder and moved into it.
			return "", fmt.Errorf("space %q: store object %s: the space's folder is on another file system than the store (a link?): objects are written in the store's .tmp folder and renamed into their space, so a space must stay on the store's file system", space, id)
		}
		return "", s.putError(space, len(data), "store object", err)
	}
	ok = true
	stored = true
	syncDir(dir)
	return id, nil
}

// danglingLink is the path, relative to the store, of the first folder
// of dir below the root that is a link to nothing, or "".
func (s *Store) danglingLink(dir string) string {
	rel, err := filepath.Rel(s.root, dir)
	if err != nil {
		return ""
	}
	sub := ""
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		sub = filepath.Join(sub, part)
		p := filepath.Join(s.root, sub)
		st, err := os.Lstat(p)
		if err != nil {
			return ""
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
				return filepath.ToSlash(sub)
			}
		}
	}
	return ""
}

// linkToNothing says that l, a path relative to the store, is a link to
// nothing (danglingLink).
func linkToNothing(l string) string {
	return l + " in the store is a link to a folder that does not exist (moved, or on a disk not mounted?)"
}

// objectLock serializes the Puts and Deletes of one object (objMu).
type objectLock struct {
	mu      sync.Mutex
	waiting int
}

// lockObject locks the object file p against the other Puts and Deletes
// of this Store; unlock releases it.
func (s *Store) lockObject(p string) (unlock func()) {
	s.objMu.Lock()
	if s.objLocks == nil {
		s.objLocks = map[string]*objectLock{}
	}
	l := s.objLocks[p]
	if l == nil {
		l = &objectLock{}
		s.objLocks[p] = l
	}
	l.waiting++
	s.objMu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		s.objMu.Lock()
		if l.waiting--; l.waiting == 0 {
			delete(s.objLocks, p)
		}
		s.objMu.Unlock()
	}
}

// writeTemp writes data to a Put's temporary file and fsyncs it. A
// variable for the tests (a full disk).
var writeTemp = func(f *os.File, data []byte) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Sync()
}

// putError is a Put's error err at step (or none): a full disk or file
// system quota (ENOSPC, EDQUOT; on Windows ERROR_DISK_FULL,
// ERROR_HANDLE_DISK_FULL: diskFullErrnos) is ErrFull, something a caller can act on
// (TooLarge, as the min_free_bytes reserve), not a host bug; and the
// message names the space, and a path only relative to the store (it
// reaches the tool).
func (s *Store) putError(space string, n int, step string, err error) error {
	if step != "" {
		step += ": "
	}
	err = s.noPath(err)
	if slices.ContainsFunc(diskFullErrnos, func(e syscall.Errno) bool { return errors.Is(err, e) }) {
		return fmt.Errorf("%w: storing %d bytes in space %q: the store's disk is full (%s%v)", ErrFull, n, space, step, err)
	}
	return fmt.Errorf("space %q: %s%w", space, step, err)
}

// noPath is err with the paths of an *fs.PathError or an *os.LinkError
// made relative to the store (the store's errors reach tools, which are
// not told where the host keeps its data), and left out when outside it:
// "mkdir docs/ab: not a directory" says which folder is a file, where
// "mkdir: not a directory" said nothing of it.
func (s *Store) noPath(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return fmt.Errorf("%s%s: %w", pe.Op, s.rel(pe.Path), pe.Err)
	case errors.As(err, &le):
		return fmt.Errorf("%s%s%s: %w", le.Op, s.rel(le.Old), s.rel(le.New), le.Err)
	}
	return err
}

// rel is " " and path p relative to the store's root ("the store's
// folder" for the root itself, ".tmp" for a Put's temporary file, whose
// random name says nothing), or "" when p is not in the store.
func (s *Store) rel(p string) string {
	r, err := filepath.Rel(s.root, p)
	switch {
	case err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r):
		return ""
	case r == ".":
		return " (the store's folder)"
	case strings.HasPrefix(r, tmpDir+string(filepath.Separator)):
		return " " + tmpDir
	}
	return " " + filepath.ToSlash(r)
}

// reserve checks that n more bytes fit in space (its quota, where they
// replace a file of replaced bytes) and on the disk (the reserve, the
// bytes of the Puts still writing counted as written), and counts them
// against both; release(false) gives them back when the Put failed
// (release(true) when it stored them: they are on the disk).
func (s *Store) reserve(space string, n, replaced int64) (release func(stored bool), err error) {
	unwrite := func() {}
	if s.minFree > 0 {
		s.freeMu.Lock()
		if free, ok := diskFree(s.root); ok && free-s.writing-n < s.minFree {
			// The other Puts writing now count as written (they
			// counted once each, and all passed the reserve).
			writing := s.writing
			s.freeMu.Unlock()
			what := ""
			if writing > 0 {
				what = fmt.Sprintf(" once the %d bytes of the writes in flight are written", writing)
			}
			return nil, fmt.Errorf("%w: storing %d bytes in space %q would leave %d bytes free on the store's disk%s, below the reserve of %d (limits.min_free_bytes)", ErrFull, n, space, max(free-writing-n, 0), what, s.minFree)
		}
		s.writing += n
		s.freeMu.Unlock()
		unwrite = func() {
			s.freeMu.Lock()
			s.writing -= n
			s.freeMu.Unlock()
		}
	}
	if s.maxSpace <= 0 {
		return func(bool) { unwrite() }, nil
	}
	// The quota counts what the space grows by: a damaged copy of the
	// object that the Put replaces is counted already.
	grow := max(n-replaced, 0)
	s.usageMu.Lock()
	defer s.usageMu.Unlock()
	ok := false
	defer func() {
		if !ok {
			unwrite()
		}
	}()
	if s.usage == nil {
		s.usage = map[string]int64{}
	}
	if s.inflight == nil {
		s.inflight, s.recountAt, s.counts = map[string]int64{}, map[string]time.Time{}, map[string]uint64{}
	}
	used, known := s.usage[space]
	for counted := known; !counted; used, counted = s.usage[space] {
		// The first count of the space, made without the lock, as the
		// recount is: it walked a space of a million objects (at the
		// first write after a start) while every Put of every space
		// waited. The other Puts of the space wait for it; no Put of
		// the space is in flight before it.
		if c := s.counting[space]; c != nil {
			s.usageMu.Unlock()
			<-c
			s.usageMu.Lock()
			continue // counted, or that count failed: count again
		}
		c := make(chan struct{})
		if s.counting == nil {
			s.counting = map[string]chan struct{}{}
		}
		s.counting[space] = c
		s.usageMu.Unlock()
		n, cerr := countSpace(s, space)
		s.usageMu.Lock()
		delete(s.counting, space)
		close(c)
		if cerr != nil {
			return nil, cerr
		}
		s.usage[space] = n
		s.counts[space]++
		s.recountAt[space] = time.Now().Add(recountEvery)
	}
	if now := time.Now(); used+grow > s.maxSpace && known && !now.Before(s.recountAt[space]) {
		// Objects may have gone meanwhile without this Store's Delete
		// (removed by hand or by a clean-up script to make room, or by
		// another process): count again before refusing. Without this a
		// running host refused every write to a space made full once,
		// however much was removed from it, until it restarted. The count
		// is made without the lock, so that the Puts of other spaces do
		// not wait for it; a Put of this space finished meanwhile may be
		// missed by it, until the next count.
		s.recountAt[space] = now.Add(recountEvery)
		// The Puts of this space that finish during the count are
		// added to it (the walk may have passed their folder: the
		// space passed its quota), at the cost of counting twice those
		// it saw, until the next count.
		done := new(int64)
		if s.recounts == nil {
			s.recounts = map[string][]*int64{}
		}
		s.recounts[space] = append(s.recounts[space], done)
		s.usageMu.Unlock()
		fresh, ferr := countSpace(s, space)
		s.usageMu.Lock()
		if s.recounts[space] = slices.DeleteFunc(s.recounts[space], func(p *int64) bool { return p == done }); len(s.recounts[space]) == 0 {
			delete(s.recounts, space)
		}
		s.recountAt[space] = time.Now().Add(max(recountEvery, 10*time.Since(now)))
		used = s.usage[space]
		if ferr == nil {
			used = fresh + s.inflight[space] + *done
			s.counts[space]++
		}
	}
	if used+grow > s.maxSpace {
		s.usage[space] = used
		return nil, fmt.Errorf("%w: storing %d bytes in space %q would pass its quota of %d bytes (%d used; limits.max_space_bytes)", ErrFull, n, space, s.maxSpace, used)
	}
	s.usage[space] = used + grow
	s.inflight[space] += grow
	ok = true
	return func(stored bool) {
		unwrite()
		s.usageMu.Lock()
		defer s.usageMu.Unlock()
		if s.inflight[space] -= grow; s.inflight[space] <= 0 {
			delete(s.inflight, space)
		}
		if !stored {
			s.usage[space] -= grow
		} else {
			for _, done := range s.recounts[space] {
				*done += grow
			}
		}
	}, nil
}

// removeObject is os.Remove, Delete's removal of an object file. A
// variable for the tests.
var removeObject = os.Remove

// diskFree is freeBytes, the free space of the store's disk. A variable
// for the tests.
var diskFree = freeBytes

// countSpace is (*Store).spaceBytes, the count of a space at its first
// Put and the recount of one whose Put would pass its quota. A variable
// for the tests.
var countSpace = (*Store).spaceBytes

// spaceBytes adds up the sizes of space's object files.
func (s *Store) spaceBytes(space string) (int64, error) {
	var total int64
	// The trailing separator makes WalkDir follow a space folder that is
	// a link (moved to another disk): it counted as empty. A fan-out
	// folder that is a link is walked too, as List lists it.
	dir := filepath.Join(s.root, space)
	var count func(dir string, top bool) error
	count = func(dir string, top bool) error {
		return filepath.WalkDir(dir+string(filepath.Separator), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.Type().IsRegular() {
				if info, err := d.Info(); err == nil {
					total += info.Size()
				}
			} else if top && len(d.Name()) == 2 && filepath.Dir(p) == dir && isDirOrLinkToDir(dir, d) && !d.IsDir() {
				return count(p, false)
			}
			return nil
		})
	}
	err := count(dir, true)
	if err != nil {
		return 0, fmt.Errorf("space %q: count its size: %w", space, s.noPath(err))
	}
	return total, nil
}

// isDirOrLinkToDir reports whether entry e of folder dir is a folder or
// a link to one (a fan-out folder moved and linked back, which Get reads
// through).
func isDirOrLinkToDir(dir string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, e.Name()))
	return err == nil && st.IsDir()
}

// overLimit is the read bound that shows an input over n bytes: n+1, or n
// itself for the largest int64 (n+1 would overflow into a bound of nothing).
func overLimit(n int64) int64 {
	if n == math.MaxInt64 {
		return n
	}
	return n + 1
}

// holds reports whether the file at p is a regular file holding exactly
// data. A file of the right size is compared, not trusted: a copy damaged
// in place would otherwise survive every Put of its content.
func holds(p string, data []byte) bool {
	// Stat before opening: a FIFO put in the store must not block Put.
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() || st.Size() != int64(len(data)) {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, min(len(data), 64<<10))
	for off := 0; off < len(data); {
		n, err := io.ReadFull(f, buf[:min(len(buf), len(data)-off)])
		if err != nil || !bytes.Equal(buf[:n], data[off:off+n]) {
			return false
		}
		off += n
	}
	return true
}

// syncDir makes a rename, a removal or a folder made in dir durable
// (fsperm.SyncDir). A variable for the tests.
var syncDir = fsperm.SyncDir

// Get returns the content of object id in space. It re-hashes the content and
// returns ErrCorrupt when it does not match id.
func (s *Store) Get(space, id string) ([]byte, error) {
	p, err := s.objectPath(space, id)
	if err != nil {
		return nil, err
	}
	// O_NONBLOCK: a FIFO put in the store must not block Get in open(2)
	// (it is refused below as not a regular file); no effect on a file.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if l := s.danglingLink(filepath.Dir(p)); l != "" {
				// Not missing: where the link pointed (a disk not
				// mounted?), as Put and List say.
				return nil, fmt.Errorf("space %q: object %s: %s", space, id, linkToNothing(l))
			}
			return nil, fmt.Errorf("%w: %s in space %q", ErrNotFound, id, space)
		}
		return nil, fmt.Errorf("space %q: object %s: %w", space, id, s.noPath(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("space %q: object %s: %w", space, id, s.noPath(err))
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s in space %q is not a regular file", ErrCorrupt, id, space)
	}
	if st.Size() > s.maxBytes {
		return nil, fmt.Errorf("%w: %s in space %q has %d bytes, over the limit of %d (limits.max_object_bytes)", ErrTooLarge, id, space, st.Size(), s.maxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, overLimit(s.maxBytes)))
	if err != nil {
		return nil, fmt.Errorf("space %q: read object %s: %w", space, id, s.noPath(err))
	}
	if int64(len(data)) > s.maxBytes {
		return nil, fmt.Errorf("%w: %s in space %q grew past the limit of %d bytes (limits.max_object_bytes)", ErrTooLarge, id, space, s.maxBytes)
	}
	if got := ID(data); got != id {
		return nil, fmt.Errorf("%w: %s in space %q hashes to %s", ErrCorrupt, id, space, got)
	}
	return data, nil
}

// Size returns the size in bytes of object id in space, without reading
// it (or verifying it): a reader with a bound of its own checks it before
// Get reads the object whole.
func (s *Store) Size(space, id string) (int64, error) {
	p, err := s.objectPath(space, id)
	if err != nil {
		return 0, err
	}
	// Through a link, as Get reads (Lstat called a linked object
	// corrupt, which Get read).
	st, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if l := s.danglingLink(filepath.Dir(p)); l != "" {
				return 0, fmt.Errorf("space %q: object %s: %s", space, id, linkToNothing(l))
			}
			return 0, fmt.Errorf("%w: %s in space %q", ErrNotFound, id, space)
		}
		return 0, fmt.Errorf("space %q: object %s: %w", space, id, s.noPath(err))
	}
	if !st.Mode().IsRegular() {
		return 0, fmt.Errorf("%w: %s in space %q is not a regular file", ErrCorrupt, id, space)
	}
	return st.Size(), nil
}

// Has reports whether object id exists in space (without verifying it).
func (s *Store) Has(space, id string) (bool, error) {
	p, err := s.objectPath(space, id)
	if err != nil {
		return false, err
	}
	st, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, fmt.Errorf("space %q: object %s: %w", space, id, s.noPath(err))
	}
	return st.Mode().IsRegular(), nil
}

// Delete removes object id from space. Deleting an absent object returns
// ErrNotFound.
func (s *Store) Delete(space, id string) error {
	p, err := s.objectPath(space, id)
	if err != nil {
		return err
	}
	// The object's lock, as a Put of it holds it: a Put's rename between
	// this Lstat and the Remove made the size 0 and the object's bytes
	// stayed counted against the quota after it was gone
	// (TestOneObjectPutGetDeleteConcurrently).
	unlock := s.lockObject(p)
	// A count of the space made between the removal and the usage taken
	// down below sees the object gone: taking its size off again let the
	// space pass its quota (TestDeleteDuringRecountKeepsQuota).
	var counts uint64
	if s.maxSpace > 0 {
		s.usageMu.Lock()
		counts = s.counts[space]
		s.usageMu.Unlock()
	}
	var size int64
	if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
		// Only a regular file is counted (spaceBytes): a link's or a
		// folder's own size taken off let the space pass its quota.
		size = st.Size()
	}
	err = removeObject(p)
	unlock()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s in space %q", ErrNotFound, id, space)
		}
		return fmt.Errorf("space %q: delete %s: %w", space, id, s.noPath(err))
	}
	if s.maxSpace > 0 {
		s.usageMu.Lock()
		if used, ok := s.usage[space]; ok && s.counts[space] == counts {
			s.usage[space] = max(used-size, 0)
		}
		s.usageMu.Unlock()
	}
	// The removal is made durable in the folder it was made in: the
	// fan-out folder, or, when that was emptied and removed too, the
	// space's folder that held it (syncing the removed folder synced
	// nothing, and a crash could bring the object back).
	// A fan-out folder that is a link (moved and linked back) is left:
	// os.Remove unlinks a link whatever its folder holds, and the other
	// objects in it were gone from the space
	// (TestDeleteInLinkedFanOutFolderKeepsTheRest).
	fan := filepath.Dir(p)
	if st, err := os.Lstat(fan); err == nil && st.IsDir() && os.Remove(fan) == nil { // fails harmlessly when not empty
		syncDir(filepath.Dir(fan))
	} else {
		syncDir(fan)
	}
	return nil
}

// Spaces lists the spaces that exist (hold or held an object), sorted.
// A store whose folder was removed (Put makes it again) has none.
func (s *Store) Spaces() ([]string, error) {
	ents, err := os.ReadDir(s.root)
	if errors.Is(err, fs.ErrNotExist) {
		// Removed under a running host (to make room): the spaces are
		// gone, as List finds a space gone. An error here failed every
		// read by id alone (Internal), while a read naming the space
		// was NotFound.
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("space: list the spaces: %w", s.noPath(err))
	}
	var out []string
	for _, e := range ents {
		if ValidateSpaceName(e.Name()) != nil {
			continue
		}
		dir := e.IsDir()
		if !dir && e.Type()&fs.ModeSymlink != 0 {
			// A space folder linked from elsewhere: Get goes through
			// the link (and Put, on the store's file system), so the
			// space is there.
			st, err := os.Stat(filepath.Join(s.root, e.Name()))
			dir = err == nil && st.IsDir()
		}
		if dir {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// List returns the ids of the objects in space, sorted. A space that does
// not exist is empty.
func (s *Store) List(space string) ([]string, error) {
	return s.ListAfter(space, "", -1)
}

// ListAfter returns at most n (n < 0: all) of the ids of the objects in
// space that sort after after ("": from the first), sorted. It reads only
// the fan-out directories from after's on, and stops at the first that
// fills the page: a client paging through a large space
// (resources/list) made each page list the whole space.
func (s *Store) ListAfter(space, after string, n int) ([]string, error) {
	if err := ValidateSpaceName(space); err != nil {
		return nil, err
	}
	dir := filepath.Join(s.root, space)
	fans, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if l := s.danglingLink(dir); l != "" {
				// Not empty: its objects are where the link
				// pointed (a disk not mounted?).
				return nil, fmt.Errorf("space %q: list: %s", space, linkToNothing(l))
			}
			return nil, nil
		}
		return nil, fmt.Errorf("space %q: list: %w", space, s.noPath(err))
	}
	// The fan-out directory of after (ids below IDPrefix+"00" start at the
	// first, ids past IDPrefix+"ff" leave nothing).
	fromFan := ""
	if after != "" {
		if rest, ok := strings.CutPrefix(after, IDPrefix); ok {
			fromFan = rest[:min(2, len(rest))]
		} else if after > IDPrefix {
			return nil, nil
		}
	}
	var out []string
	for _, fan := range fans {
		if len(fan.Name()) != 2 || fan.Name() < fromFan || !isDirOrLinkToDir(dir, fan) {
			continue
		}
		if n >= 0 && len(out) >= n {
			break // the page is full: later fans hold only later ids
		}
		ents, err := os.ReadDir(filepath.Join(dir, fan.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue // a Delete emptied and removed it meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("space %q: list: %w", space, s.noPath(err))
		}
		start := len(out)
		for _, e := range ents {
			id := IDPrefix + fan.Name() + e.Name()
			if id <= after || ValidateID(id) != nil {
				continue
			}
			ok := e.Type().IsRegular()
			if !ok && e.Type()&fs.ModeSymlink != 0 {
				// A link to an object file (a store deduplicated by
				// hand): Get reads through it, so it is listed.
				st, err := os.Stat(filepath.Join(dir, fan.Name(), e.Name()))
				ok = err == nil && st.Mode().IsRegular()
			}
			if ok {
				out = append(out, id)
			}
		}
		sort.Strings(out[start:])
	}
	sort.Strings(out) // fan names of odd case ("AB") sort apart
	if n >= 0 && len(out) > n {
		out = out[:n]
	}
	return out, nil
}
