package discovery

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/aios-host/aios-host/internal/wire"
)

// The Debian package database, read to learn the version of installed
// software without running it: /var/lib/dpkg/info/PKG[:ARCH].list lists
// the files of each package, /var/lib/dpkg/status their versions.
const (
	dpkgDir = "var/lib/dpkg"
	// maxDpkgStatusBytes bounds the status file (a desktop system's is a
	// few MiB).
	maxDpkgStatusBytes = 128 << 20
	// maxDpkgListBytes bounds one .list file; larger ones are skipped.
	maxDpkgListBytes = 32 << 20
	// maxDpkgLine bounds one line of the status file.
	maxDpkgLine = 1 << 20
)

// dpkgDB answers "which installed package owns this file, at which
// version" from one dpkg root ("/" outside tests). Answers are cached until
// the database changes (the status file's size or time, the info folder's
// time): a package installed, upgraded or removed is seen at the next
// detection.
type dpkgDB struct {
	root string

	mu       sync.Mutex
	stamp    string
	owners   map[string]string  // path → "pkg" or "pkg:arch"; "" when no package lists it
	versions map[string]dpkgPkg // "pkg[:arch]" → what status says
}

type dpkgPkg struct {
	version string
	status  string // the Status field: "install ok installed"
}

var (
	dpkgDBsMu sync.Mutex
	dpkgDBs   = map[string]*dpkgDB{}
)

// dpkgAt returns the shared database of a dpkg root.
func dpkgAt(root string) *dpkgDB {
	if root == "" {
		root = "/"
	}
	dpkgDBsMu.Lock()
	defer dpkgDBsMu.Unlock()
	db := dpkgDBs[root]
	if db == nil {
		db = &dpkgDB{root: root}
		dpkgDBs[root] = db
	}
	return db
}

func (db *dpkgDB) statusPath() string { return filepath.Join(db.root, dpkgDir, "status") }
func (db *dpkgDB) infoDir() string    { return filepath.Join(db.root, dpkgDir, "info") }

// errNoDpkg says the system has no dpkg database (not Debian-based).
var errNoDpkg = errors.New("no dpkg database")

// refresh drops the cache when the database changed; called with mu.
func (db *dpkgDB) refresh() error {
	st, err := os.Stat(db.statusPath())
	if err != nil {
		return fmt.Errorf("%w (%s: %v)", errNoDpkg, db.statusPath(), err)
	}
	if !st.Mode().IsRegular() {
		// Never opened: a FIFO would block the open.
		return fmt.Errorf("dpkg database %s is not a regular file", db.statusPath())
	}
	stamp := fmt.Sprintf("%d/%d", st.Size(), st.ModTime().UnixNano())
	if ist, err := os.Stat(db.infoDir()); err == nil {
		stamp += fmt.Sprintf("/%d", ist.ModTime().UnixNano())
	}
	if stamp != db.stamp || db.owners == nil {
		db.stamp, db.owners, db.versions = stamp, map[string]string{}, nil
	}
	return nil
}

// VersionOf finds the installed package that owns one of paths (tried in
// order) and returns its name and version. With no error, an empty version
// means no installed package owns them; why is in note.
func (db *dpkgDB) VersionOf(paths ...string) (pkg, version, note string, err error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if err := db.refresh(); err != nil {
		if errors.Is(err, errNoDpkg) {
			return "", "", "no dpkg database at " + db.statusPath(), nil
		}
		return "", "", "", err
	}
	for _, p := range paths {
		if p == "" {
			continue
		}
		owner, ok := db.owners[p]
		if !ok {
			if owner, err = db.findOwner(dpkgCandidates(p)); err != nil {
				return "", "", "", err
			}
			db.owners[p] = owner
		}
		if owner == "" {
			continue
		}
		if db.versions == nil {
			if err := db.loadStatus(); err != nil {
				return "", "", "", err
			}
		}
		info, ok := db.versions[owner]
		if !ok {
			// A list without an arch qualifier for a package that has one
			// (or the reverse): match by name.
			name, _, _ := strings.Cut(owner, ":")
			info, ok = db.versions[name]
		}
		switch {
		case !ok:
			return owner, "", fmt.Sprintf("package %s (owner of %s) is not in %s", owner, p, db.statusPath()), nil
		case !strings.HasSuffix(info.status, " installed"):
			return owner, "", fmt.Sprintf("package %s (owner of %s) is %q, not installed", owner, p, info.status), nil
		}
		return owner, info.version, "", nil
	}
	var named []string
	for _, p := range paths {
		if p != "" {
			named = append(named, p)
		}
	}
	return "", "", "no package in " + db.infoDir() + " lists " + strings.Join(named, " or "), nil
}

// dpkgCandidates are the names under which dpkg may list path: itself,
// what its symbolic links resolve to (/usr/bin/firefox → /usr/lib/firefox-esr/firefox-esr
// through /etc/alternatives), and each of those with and without /usr
// for the merged-/usr directories (/bin/sh is /usr/bin/sh).
func dpkgCandidates(p string) []string {
	out := []string{filepath.Clean(p)}
	if r, err := filepath.EvalSymlinks(p); err == nil && r != out[0] {
		out = append(out, r)
	}
	for _, c := range out[:len(out):len(out)] {
		for _, d := range []string{"/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/"} {
			if strings.HasPrefix(c, d) {
				out = append(out, "/usr"+c)
			} else if strings.HasPrefix(c, "/usr"+d) {
				out = append(out, strings.TrimPrefix(c, "/usr"))
			}
		}
	}
	return out
}

// findOwner scans the .list files for any of paths; the owner is the
// list's name without .list ("pkg" or "pkg:arch"), "" when none lists them.
func (db *dpkgDB) findOwner(paths []string) (string, error) {
	ents, err := os.ReadDir(db.infoDir())
	if err != nil {
		return "", fmt.Errorf("dpkg database %s: %v", db.infoDir(), err)
	}
	needles := make([][]byte, len(paths))
	for i, p := range paths {
		needles[i] = []byte(p)
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".list") || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil || info.Size() > maxDpkgListBytes {
			continue
		}
		data, err := os.ReadFile(filepath.Join(db.infoDir(), name))
		if err != nil {
			continue
		}
		if listHas(data, needles) {
			return strings.TrimSuffix(name, ".list"), nil
		}
	}
	return "", nil
}

// listHas reports whether one line of a .list file is one of needles.
func listHas(data []byte, needles [][]byte) bool {
	for _, n := range needles {
		if len(n) == 0 {
			continue
		}
		for off := 0; ; {
			i := bytes.Index(data[off:], n)
			if i < 0 {
				break
			}
			at := off + i
			end := at + len(n)
			if (at == 0 || data[at-1] == '\n') && (end == len(data) || data[end] == '\n') {
				return true
			}
			off = at + 1
		}
	}
	return false
}

// loadStatus reads the versions of the status file; called with mu.
func (db *dpkgDB) loadStatus() error {
	f, err := os.Open(db.statusPath())
	if err != nil {
		return fmt.Errorf("dpkg database: %v", err)
	}
	defer f.Close()
	versions := map[string]dpkgPkg{}
	err = ParseDpkgStatus(io.LimitReader(f, maxDpkgStatusBytes+1), db.statusPath(), func(st DpkgStanza) {
		if st.Package == "" {
			return
		}
		p := dpkgPkg{version: st.Version, status: st.Status}
		key := st.Package + ":" + st.Architecture
		if st.Architecture == "" {
			key = st.Package
		}
		if old, ok := versions[key]; !ok || !strings.HasSuffix(old.status, " installed") {
			versions[key] = p
		}
		if old, ok := versions[st.Package]; !ok || !strings.HasSuffix(old.status, " installed") {
			versions[st.Package] = p
		}
	})
	if err != nil {
		return err
	}
	db.versions = versions
	return nil
}

// DpkgStanza is one paragraph of /var/lib/dpkg/status, with the fields
// version detection reads.
type DpkgStanza struct {
	Package      string
	Architecture string
	Version      string
	Status       string
}

// ParseDpkgStatus reads a dpkg status file (deb822 paragraphs separated by
// blank lines; continuation lines start with a space or a tab) and calls fn
// for each paragraph. name is the file's name in errors. More than
// maxDpkgStatusBytes, a line over maxDpkgLine, a line that is neither
// "Field: value" nor a continuation, or a continuation before any field is
// an error naming the line.
func ParseDpkgStatus(r io.Reader, name string, fn func(DpkgStanza)) error {
	br := bufio.NewScanner(r)
	br.Buffer(make([]byte, 0, 64<<10), maxDpkgLine)
	var cur DpkgStanza
	have, read := false, 0
	flush := func() {
		if have {
			fn(cur)
		}
		cur, have = DpkgStanza{}, false
	}
	for n := 1; br.Scan(); n++ {
		line := br.Bytes()
		read += len(line) + 1
		if read > maxDpkgStatusBytes {
			return fmt.Errorf("%s: larger than %d bytes", name, maxDpkgStatusBytes)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			flush()
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if !have {
				return fmt.Errorf("%s:%d: continuation line before any field", name, n)
			}
			continue
		}
		if line[0] == '#' {
			continue
		}
		field, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(field) == 0 || bytes.ContainsAny(field, " \t") {
			return fmt.Errorf("%s:%d: line is neither \"Field: value\" nor a continuation: %q", name, n, wire.CutText(string(line), 80, "…"))
		}
		have = true
		v := string(bytes.TrimSpace(value))
		switch strings.ToLower(string(field)) {
		case "package":
			cur.Package = v
		case "architecture":
			cur.Architecture = v
		case "version":
			cur.Version = v
		case "status":
			cur.Status = v
		}
	}
	if err := br.Err(); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	flush()
	return nil
}
