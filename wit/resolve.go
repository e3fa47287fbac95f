package wit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/aios-host/aios-host/component/binary"
	"github.com/aios-host/aios-host/component/wat"
)

// Options control resolution.
type Options struct {
	// Features lists the enabled `@unstable(feature = ...)` features. Items
	// gated on any other feature are left out of the resolved model.
	Features []string
	// AllFeatures enables every feature.
	AllFeatures bool
	// Builtin holds packages that come with the program, by full name
	// ("aios:sdk@0.1.0"), each the text of one WIT file defining it. One is
	// resolved only when a package refers to it and neither the file nor
	// its deps/ defines a package of that name and version: aios-host
	// gives its own aios:sdk this way, so that a world importing
	// aios:sdk/spaces@0.1.0, as the seed's does, resolves without a copy
	// of the host's WIT beside it.
	Builtin map[string]string
}

// Parse parses and resolves a WIT file or a package directory (its *.wit
// files plus deps/). A .wasm file (or any file starting with the
// WebAssembly magic) is read as a WIT package in its binary encoding, a
// .wat file as that encoding in text form (see DecodeBinary).
func Parse(path string, opts Options) (*Resolved, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return ParseDir(path, opts)
	}
	src, err := readSource(path)
	if err != nil {
		return nil, err
	}
	if isEncoded(path, src) {
		d, err := decodeFile(path, src)
		if err != nil {
			return nil, err
		}
		return ParseSource(decodedName(path), d.text(), opts)
	}
	return ParseSource(path, string(src), opts)
}

// DecodeBinary resolves a WIT package from its binary encoding (a
// component exporting one component type per interface and world, as
// `wasm-tools component wit --wasm` writes it and package registries
// publish it). Interfaces of other packages that it uses come back as
// stub packages holding what the encoding says of them. name labels
// positions in errors.
func DecodeBinary(name string, b []byte, opts Options) (*Resolved, error) {
	d, err := decodeBinary(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return ParseSource(decodedName(name), d.text(), opts)
}

// isEncoded reports whether a file holds a WIT package in binary or
// WebAssembly text form rather than WIT.
func isEncoded(path string, src []byte) bool {
	return strings.HasSuffix(path, ".wasm") || strings.HasSuffix(path, ".wat") || binary.IsComponent(src)
}

// decodeFile decodes a .wasm or .wat WIT package.
func decodeFile(path string, src []byte) (*decoded, error) {
	var d *decoded
	var err error
	if strings.HasSuffix(path, ".wat") && !binary.IsComponent(src) {
		var c *binary.Component
		if c, err = wat.Parse(src); err != nil {
			return nil, fmt.Errorf("%s:%w", path, err)
		}
		d, err = decodeComponent(c)
	} else {
		d, err = decodeBinary(src)
	}
	if errors.Is(err, ErrNotPackage) {
		return nil, &NotPackageError{Path: path, Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// NotPackageError is the error for a file holding a component with code
// where a WIT package belongs: the file given to Parse, or one in a
// package folder's deps/. It wraps ErrNotPackage and names the file, so a
// caller can point at it (aios-host wit sent the user to inspect the
// folder given, not the file in its deps/: TestWitDepComponentHint).
type NotPackageError struct {
	Path string
	Err  error
}

func (e *NotPackageError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *NotPackageError) Unwrap() error { return e.Err }

// decodedName labels the WIT source decoded from path in positions.
func decodedName(path string) string { return path + " (decoded)" }

// ParseSource parses and resolves one WIT file given as text; name is used
// in positions.
func ParseSource(name, src string, opts Options) (*Resolved, error) {
	f, err := parseFile(name, src)
	if err != nil {
		return nil, err
	}
	r := newResolver(opts)
	if err := r.addRoot([]*astFile{f}, name); err != nil {
		return nil, err
	}
	return r.resolve()
}

// ParseDir parses and resolves a package directory: every *.wit file in dir
// is part of the root package; deps/ holds dependencies, each a directory
// (parsed the same way) or a single .wit file. Other files are ignored.
func ParseDir(dir string, opts Options) (*Resolved, error) {
	files, err := parseDirFiles(dir)
	if err != nil {
		return nil, err
	}
	r := newResolver(opts)
	if err := r.addRoot(files, dir); err != nil {
		return nil, err
	}
	deps := filepath.Join(dir, "deps")
	ents, err := os.ReadDir(deps)
	// Stubs of packages that binary deps use, added when no dependency
	// defines the package itself.
	stubs := map[string]string{}
	stubFrom := map[string]string{}
	if err == nil {
		for _, e := range ents {
			p := filepath.Join(deps, e.Name())
			var dfiles []*astFile
			switch n := e.Name(); {
			case e.IsDir() || e.Type()&fs.ModeSymlink != 0 && isDir(p):
				// A folder, or a link to one (as wasm-tools reads it: a
				// dependency kept elsewhere and linked in).
				if dfiles, err = parseDirFiles(p); err != nil {
					return nil, err
				}
			case strings.HasSuffix(n, ".wit"):
				if err := listedRegular(p); err != nil {
					return nil, err
				}
				f, err := readFile(p)
				if err != nil {
					return nil, err
				}
				dfiles = []*astFile{f}
			case strings.HasSuffix(n, ".wasm"), strings.HasSuffix(n, ".wat"):
				if err := listedRegular(p); err != nil {
					return nil, err
				}
				src, err := readSource(p)
				if err != nil {
					return nil, err
				}
				d, err := decodeFile(p, src)
				if err != nil {
					return nil, err
				}
				f, err := parseFile(decodedName(p), d.src)
				if err != nil {
					return nil, err
				}
				dfiles = []*astFile{f}
				for k, v := range d.stubs {
					if _, ok := stubs[k]; !ok {
						stubs[k], stubFrom[k] = v, p
					}
				}
			default:
				continue
			}
			if err := r.addRoot(dfiles, p); err != nil {
				return nil, err
			}
		}
	}
	keys := make([]string, 0, len(stubs))
	for k := range stubs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := r.pkgs[k]; ok {
			continue
		}
		f, err := parseFile(decodedName(stubFrom[k]), stubs[k])
		if err != nil {
			return nil, err
		}
		if err := r.addRoot([]*astFile{f}, stubFrom[k]); err != nil {
			return nil, err
		}
	}
	res, err := r.resolve()
	if err != nil {
		return nil, err
	}
	return res, nil
}

// MaxFileBytes bounds one file of a WIT package (.wit, or its .wasm or
// .wat encoding): a larger one is refused, as one that never ends
// (/dev/zero, a FIFO fed without end) is, instead of being read until
// memory runs out. The WASI packages' largest files are tens of KiB.
const MaxFileBytes = 16 << 20

// readSource reads the file at path, at most MaxFileBytes of it.
func readSource(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err // a *PathError, naming the file
	}
	if len(src) > MaxFileBytes {
		return nil, fmt.Errorf("%s is more than %d bytes, the limit for a file of a WIT package", path, MaxFileBytes)
	}
	return src, nil
}

// isDir tells whether path is a directory, following links.
func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// listedRegular refuses a file found in a package folder (or its deps/)
// that is not a regular file: a named pipe there waited for a writer for
// good, a device was read to the size limit. A file named alone (Parse of
// a FIFO, `aios-host wit <(…)`) is read as it comes.
func listedRegular(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err // a *PathError, naming the file
	}
	if m := st.Mode(); !m.IsRegular() {
		kind := "not a regular file"
		switch {
		case m&fs.ModeNamedPipe != 0:
			kind = "a named pipe"
		case m&fs.ModeSocket != 0:
			kind = "a socket"
		case m&fs.ModeDevice != 0:
			kind = "a device"
		case m.IsDir():
			kind = "a directory"
		}
		return fmt.Errorf("%s is %s, not a file of a WIT package", path, kind)
	}
	return nil
}

// readFile reads and parses one WIT file.
func readFile(path string) (*astFile, error) {
	src, err := readSource(path)
	if err != nil {
		return nil, err
	}
	return parseFile(path, string(src))
}

func parseDirFiles(dir string) ([]*astFile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*astFile
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".wit") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := listedRegular(p); err != nil {
			return nil, err
		}
		f, err := readFile(p)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no .wit files", dir)
	}
	return files, nil
}

// ---- package collection ----

type pkgFile struct {
	path  string
	items []any
	uses  map[string]*astTopUse // file-level `use ... as x`
}

type srcPkg struct {
	name  astPkgName
	key   string
	docs  string
	files []*pkgFile
	root  bool // first root package
	st    *pkgState
}

type resolver struct {
	features map[string]bool
	all      bool
	builtin  map[string]string // Options.Builtin
	pkgs     map[string]*srcPkg
	order    []*srcPkg
	root     *srcPkg
	scopes   map[*Interface]*scope
}

func newResolver(opts Options) *resolver {
	r := &resolver{features: map[string]bool{}, all: opts.AllFeatures, builtin: opts.Builtin, pkgs: map[string]*srcPkg{}, scopes: map[*Interface]*scope{}}
	for _, f := range opts.Features {
		r.features[f] = true
	}
	return r
}

func (r *resolver) addPkg(name astPkgName, docs string, files []*pkgFile) error {
	k := name.key()
	if old, ok := r.pkgs[k]; ok {
		return errAt(name.pos, "package `%s` is defined in two different locations: %s and %s", k, old.name.pos, name.pos)
	}
	sp := &srcPkg{name: name, key: k, docs: docs, files: files}
	r.pkgs[k] = sp
	r.order = append(r.order, sp)
	return nil
}

// addRoot adds the files of one directory (or one file): the top-level items
// form one package, nested packages are added on their own.
func (r *resolver) addRoot(files []*astFile, where string) error {
	var name *astPkgName
	var docs string
	var docsPos Position
	var pfs []*pkgFile
	hasItems := false
	var itemPos Position
	for _, f := range files {
		if f.pkg != nil {
			if name != nil && f.pkg.key() != name.key() {
				return errAt(f.pkg.pos, "package identifier `%s` does not match previous package name of `%s`", f.pkg.key(), name.key())
			}
			if name == nil {
				name = f.pkg
			}
			if f.pkgDocs != "" {
				if docs != "" {
					return errAt(f.docsPos, "found doc comments on multiple 'package' items")
				}
				docs, docsPos = f.pkgDocs, f.docsPos
			}
		}
		if len(f.items) > 0 && !hasItems {
			hasItems, itemPos = true, f.itemPos
		}
		pf := &pkgFile{path: f.path, items: f.items, uses: map[string]*astTopUse{}}
		pfs = append(pfs, pf)
		for _, n := range f.nested {
			nf := &pkgFile{path: f.path, items: n.items, uses: map[string]*astTopUse{}}
			if err := r.addPkg(n.name, n.docs, []*pkgFile{nf}); err != nil {
				return err
			}
		}
	}
	_ = docsPos
	if name == nil {
		if hasItems {
			// Where the first item is: the file to give a header.
			return errAt(itemPos, "no `package` header was found in any WIT file for this package")
		}
		if len(files) > 0 && allEmpty(files) {
			return fmt.Errorf("%s: no `package` header was found in any WIT file for this package", where)
		}
		return nil
	}
	if err := r.addPkg(*name, docs, pfs); err != nil {
		return err
	}
	if r.root == nil {
		r.root = r.pkgs[name.key()]
	}
	return nil
}

func allEmpty(files []*astFile) bool {
	for _, f := range files {
		if len(f.nested) > 0 || len(f.items) > 0 {
			return false
		}
	}
	return true
}

// lookupPkg finds a package by path; a path without version matches the only
// version present.
func (r *resolver) lookupPkg(n *astPkgName) (*srcPkg, error) {
	if sp, ok := r.pkgs[n.key()]; ok {
		return sp, nil
	}
	if n.version == "" {
		var found *srcPkg
		for _, sp := range r.order {
			if sp.name.ns == n.ns && sp.name.name == n.name {
				if found != nil {
					return nil, errAt(n.pos, "package `%s:%s` is ambiguous: several versions are present, name one with @version", n.ns, n.name)
				}
				found = sp
			}
		}
		if found != nil {
			return found, nil
		}
	}
	if sp, ok, err := r.addBuiltin(n); ok || err != nil {
		return sp, err
	}
	var known []string
	for _, sp := range r.order {
		known = append(known, sp.key)
	}
	for k := range r.builtin {
		if _, ok := r.pkgs[k]; !ok {
			known = append(known, k+" (built in)")
		}
	}
	sort.Strings(known)
	return nil, errAt(n.pos, "package '%s' not found. known packages: %s", n.key(), strings.Join(known, ", "))
}

// addBuiltin adds the built-in package n names (Options.Builtin), when
// there is one: by its full name, or for a name without a version the
// only built-in version of it. ok is false when there is none.
func (r *resolver) addBuiltin(n *astPkgName) (sp *srcPkg, ok bool, err error) {
	key := n.key()
	if n.version == "" {
		key = ""
		for k := range r.builtin {
			if strings.HasPrefix(k, n.key()+"@") {
				if key != "" {
					return nil, false, errAt(n.pos, "package `%s:%s` is ambiguous: several versions are built in, name one with @version", n.ns, n.name)
				}
				key = k
			}
		}
	}
	src, found := r.builtin[key]
	if !found {
		return nil, false, nil
	}
	if _, defined := r.pkgs[key]; defined {
		return nil, false, nil
	}
	name := key + " (built in)"
	f, err := parseFile(name, src)
	if err != nil {
		return nil, false, err
	}
	if f.pkg == nil || f.pkg.key() != key {
		return nil, false, fmt.Errorf("%s: does not define package %s", name, key)
	}
	if err := r.addRoot([]*astFile{f}, name); err != nil {
		return nil, false, err
	}
	return r.pkgs[key], true, nil
}

// foreignRefs lists the foreign package paths referenced by a package.
func foreignRefs(sp *srcPkg) []*astPkgName {
	var out []*astPkgName
	addPath := func(u *astUsePath) {
		if u != nil && u.pkg != nil {
			out = append(out, u.pkg)
		}
	}
	var iface func(items []any)
	iface = func(items []any) {
		for _, it := range items {
			if u, ok := it.(*astUse); ok {
				addPath(&u.path)
			}
		}
	}
	for _, f := range sp.files {
		for _, it := range f.items {
			switch x := it.(type) {
			case *astTopUse:
				addPath(&x.path)
			case *astInterface:
				iface(x.items)
			case *astWorld:
				for _, wi := range x.items {
					switch y := wi.(type) {
					case *astUse:
						addPath(&y.path)
					case *astWorldItem:
						addPath(y.path)
						if y.iface != nil {
							iface(y.iface.items)
						}
					case *astInclude:
						addPath(&y.path)
					}
				}
			}
		}
	}
	return out
}

func (r *resolver) resolve() (*Resolved, error) {
	if r.root == nil {
		if len(r.order) == 0 {
			return nil, fmt.Errorf("no `package` header was found in any WIT file for this package")
		}
		r.root = r.order[0]
	}
	// Topological order with cycle detection.
	state := map[*srcPkg]int{}
	var sorted []*srcPkg
	var visit func(sp *srcPkg) error
	visit = func(sp *srcPkg) error {
		state[sp] = 1
		for _, ref := range foreignRefs(sp) {
			dep, err := r.lookupPkg(ref)
			if err != nil {
				return err
			}
			switch state[dep] {
			case 1:
				return errAt(ref.pos, "package `%s` creates a dependency cycle", dep.key)
			case 0:
				if err := visit(dep); err != nil {
					return err
				}
			}
		}
		state[sp] = 2
		sorted = append(sorted, sp)
		return nil
	}
	for _, sp := range r.order {
		if state[sp] == 0 {
			if err := visit(sp); err != nil {
				return nil, err
			}
		}
	}
	res := &Resolved{}
	for _, sp := range sorted {
		st, err := r.resolvePkg(sp)
		if err != nil {
			return nil, err
		}
		res.Packages = append(res.Packages, st.pkg)
	}
	res.Root = r.root.st.pkg
	return res, nil
}

// ---- gates ----

func (r *resolver) active(g astGate) bool {
	return g.unstable == "" || r.all || r.features[g.unstable]
}

// checkSince refuses @since versions newer than the package version.
func (ps *pkgState) checkSince(g astGate, pos Position) error {
	if g.since == "" {
		return nil
	}
	if ps.src.name.version == "" {
		return errAt(pos, "package [%s] contains a feature gate with a version specifier, so it must have a version", ps.src.key)
	}
	if compareVersions(g.since, ps.src.name.version) > 0 {
		return errAt(pos, "feature gate cannot reference unreleased version %s of package [%s] (current version %s)", g.since, ps.src.key, ps.src.name.version)
	}
	return nil
}

// compareVersions compares two semantic versions (precedence rules of semver
// 2.0; build metadata ignored).
func compareVersions(a, b string) int {
	split := func(v string) (nums [3]uint64, pre string) {
		if i := strings.IndexByte(v, '+'); i >= 0 {
			v = v[:i]
		}
		if i := strings.IndexByte(v, '-'); i >= 0 {
			v, pre = v[:i], v[i+1:]
		}
		for i, s := range strings.SplitN(v, ".", 3) {
			nums[i], _ = strconv.ParseUint(s, 10, 64)
		}
		return
	}
	an, ap := split(a)
	bn, bp := split(b)
	for i := range an {
		if an[i] != bn[i] {
			if an[i] < bn[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case ap == bp:
		return 0
	case ap == "":
		return 1
	case bp == "":
		return -1
	}
	as, bs := strings.Split(ap, "."), strings.Split(bp, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, xerr := strconv.ParseUint(as[i], 10, 64)
		y, yerr := strconv.ParseUint(bs[i], 10, 64)
		switch {
		case xerr == nil && yerr == nil:
			if x != y {
				if x < y {
					return -1
				}
				return 1
			}
		case xerr == nil:
			return -1
		case yerr == nil:
			return 1
		default:
			if c := strings.Compare(as[i], bs[i]); c != 0 {
				return c
			}
		}
	}
	switch {
	case len(as) < len(bs):
		return -1
	case len(as) > len(bs):
		return 1
	}
	return 0
}
