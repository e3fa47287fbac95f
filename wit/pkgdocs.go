package wit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// The `package-docs` custom section: what the component encoding of a WIT
// package does not hold, wit-component (wasm-tools) writes beside it, as
// one version byte and then a JSON document:
//
//	{"docs": "…",                                  package docs
//	 "interfaces": {"name": IFACE, …},
//	 "worlds": {"name": {
//	   "docs": "…", "stability": STAB,
//	   "types": {"t": TYPE, …},                     the world's types
//	   "funcs": {"f": FUNC, …},                     functions imported (or exported when no import has the name)
//	   "func_exports": {"f": FUNC, …},              functions exported
//	   "interfaces": {"x": IFACE, …},               inline interfaces imported (or exported, likewise)
//	   "interface_exports": {"x": IFACE, …},        inline interfaces exported
//	   "interface_import_stability": {"ns:p/i@v": STAB, …},
//	   "interface_export_stability": {…},
//	   "interface_import_docs": {"ns:p/i@v": "…", …},
//	   "interface_export_docs": {…}}}}
//	IFACE = {"docs": "…", "stability": STAB, "funcs": {"f": FUNC, "[method]r.m": FUNC, …}, "types": {"t": TYPE, …}}
//	TYPE  = {"docs": "…", "stability": STAB, "items": {"field-or-case": "…", …}}
//	FUNC  = "…" | null (version 0) | {"docs": "…", "stability": STAB} (version 1)
//	STAB  = "unknown" | {"stable": {"since": "1.2.0", "deprecated": "1.3.0"}}
//	      | {"unstable": {"feature": "f", "deprecated": "1.3.0"}}
//
// Every member is optional. Version 0 is the original format (functions'
// docs as plain strings, no stability, "interfaces"/"funcs" only); version
// 1 (wasm-tools since April 2024) added stability and the export maps, and
// later wasm-tools added fields within version 1 (interface_import_docs,
// interface_export_docs). A `@since` written by wasm-tools before August
// 2024 may name a feature too ({"stable": {"since": …, "feature": "f"}}).
//
// The decoder reads both versions. It writes what it reads into the WIT
// source it generates, as `///` doc comments and `@since`/`@unstable`/
// `@deprecated` gates in front of each item, so the parser and resolver
// put them on the model as they do for any .wit file (and leave out items
// @unstable with a feature not enabled in Options.Features). A section of
// another version is ignored (the package decodes without its docs): the
// version byte exists to mark formats older readers cannot read, and docs
// are not worth refusing a package over. Members this decoder does not
// know are ignored for the same reason (wasm-tools added some within
// version 1). Anything else that is wrong is an error naming the section:
// bad JSON, a member of the wrong type, an item that does not exist in the
// package, a version or feature name that WIT cannot write, a character a
// WIT comment cannot hold, more than one section, a section over
// maxPackageDocs.

// packageDocsSection is the custom section's name.
const packageDocsSection = "package-docs"

// maxPackageDocs bounds the section. Docs written as `///` lines take at
// most a few times their JSON size, so this also bounds what they add to
// the generated source.
const maxPackageDocs = 4 << 20

// pkgDocs is the decoded section. Every node records whether the decoded
// package had the item it describes (used), so that entries naming
// nothing are refused once the package is rendered.
type pkgDocs struct {
	Docs       *string               `json:"docs"`
	Worlds     map[string]*worldDocs `json:"worlds"`
	Interfaces map[string]*ifaceDocs `json:"interfaces"`
	version    byte
}

// itemDocs is what every item carries: docs and a stability gate.
type itemDocs struct {
	Docs      *string   `json:"docs"`
	Stability *gateJSON `json:"stability"`
	used      bool
}

type ifaceDocs struct {
	itemDocs
	Funcs map[string]*funcDocs `json:"funcs"`
	Types map[string]*typeDocs `json:"types"`
}

type typeDocs struct {
	itemDocs
	Items map[string]*textJSON `json:"items"`
}

type worldDocs struct {
	itemDocs
	Interfaces       map[string]*ifaceDocs `json:"interfaces"`
	Types            map[string]*typeDocs  `json:"types"`
	Funcs            map[string]*funcDocs  `json:"funcs"`
	InterfaceExports map[string]*ifaceDocs `json:"interface_exports"`
	FuncExports      map[string]*funcDocs  `json:"func_exports"`
	ImportStability  map[string]*gateJSON  `json:"interface_import_stability"`
	ExportStability  map[string]*gateJSON  `json:"interface_export_stability"`
	ImportDocs       map[string]*textJSON  `json:"interface_import_docs"`
	ExportDocs       map[string]*textJSON  `json:"interface_export_docs"`
}

// funcDocs is a function's entry: a string or null (version 0) or an
// object with docs and stability (version 1).
type funcDocs struct{ itemDocs }

func (f *funcDocs) UnmarshalJSON(b []byte) error {
	switch b = bytes.TrimSpace(b); {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		f.Docs = &s
		return nil
	case len(b) > 0 && b[0] == '{':
		return json.Unmarshal(b, &f.itemDocs)
	case string(b) == "null":
		return nil
	}
	return fmt.Errorf("a function's entry is %s: want a string, null or an object", jsonKind(b))
}

// textJSON is a doc string in a map (items, interface_*_docs).
type textJSON struct {
	s    string
	used bool
}

func (t *textJSON) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &t.s); err != nil {
		return fmt.Errorf("docs are %s: want a string", jsonKind(b))
	}
	return nil
}

// gateJSON is a stability: "unknown" (g nil) or one gate.
type gateJSON struct {
	g    *Stability
	used bool
}

func (s *gateJSON) UnmarshalJSON(b []byte) error {
	var name string
	if json.Unmarshal(b, &name) == nil {
		if name != "unknown" {
			return fmt.Errorf("stability %q: want \"unknown\", {\"stable\": …} or {\"unstable\": …}", name)
		}
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || len(obj) != 1 {
		return fmt.Errorf("stability is %s: want \"unknown\" or an object with one member, \"stable\" or \"unstable\"", jsonKind(b))
	}
	var body struct {
		Since      *string `json:"since"`
		Feature    *string `json:"feature"`
		Deprecated *string `json:"deprecated"`
	}
	for k, v := range obj {
		if k != "stable" && k != "unstable" {
			return fmt.Errorf("stability %q: want \"stable\" or \"unstable\"", k)
		}
		if err := json.Unmarshal(v, &body); err != nil {
			return fmt.Errorf("stability %q: %w", k, err)
		}
		g := &Stability{}
		if k == "stable" {
			if body.Since == nil {
				return fmt.Errorf("stability \"stable\" without \"since\"")
			}
			g.Since = *body.Since
			if body.Feature != nil {
				g.Feature = *body.Feature // written before wasm-tools 1.216
			}
		} else {
			if body.Feature == nil {
				return fmt.Errorf("stability \"unstable\" without \"feature\"")
			}
			g.Unstable = *body.Feature
		}
		if body.Deprecated != nil {
			g.Deprecated = *body.Deprecated
		}
		for _, v := range []string{g.Since, g.Deprecated} {
			if v != "" && !isVersion(v) {
				return fmt.Errorf("stability: %q is not a semantic version", v)
			}
		}
		for _, f := range []string{g.Feature, g.Unstable} {
			if f != "" && validateID(f) != nil {
				return fmt.Errorf("stability: feature %q is not a WIT identifier", f)
			}
		}
		if k == "stable" && body.Feature != nil && g.Feature == "" {
			return fmt.Errorf("stability: feature \"\" is not a WIT identifier")
		}
		// An empty since or feature is no gate, and its @deprecated
		// alone would not parse.
		if k == "stable" && g.Since == "" {
			return fmt.Errorf("stability \"stable\": since \"\" is not a semantic version")
		}
		if k == "unstable" && g.Unstable == "" {
			return fmt.Errorf("stability \"unstable\": feature \"\" is not a WIT identifier")
		}
		s.g = g
	}
	return nil
}

// isVersion reports whether v is a semantic version as WIT writes it.
func isVersion(v string) bool {
	got, _, err := newLexer("", v).version()
	return err == nil && got == v
}

func jsonKind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "empty"
	}
	switch b[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// parsePackageDocs decodes the section's payload; nil (and no error) for a
// version this decoder does not read.
func parsePackageDocs(data []byte) (*pkgDocs, error) {
	if len(data) == 0 {
		return nil, errors.New("empty: want a version byte and JSON")
	}
	if len(data) > maxPackageDocs {
		return nil, fmt.Errorf("%d bytes: more than %d MiB", len(data), maxPackageDocs>>20)
	}
	if data[0] > 1 {
		return nil, nil
	}
	p := &pkgDocs{version: data[0]}
	dec := json.NewDecoder(bytes.NewReader(data[1:]))
	if err := dec.Decode(p); err != nil {
		return nil, fmt.Errorf("version %d: %w", data[0], err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("version %d: data after the JSON document", data[0])
	}
	return p, nil
}

// Lookups: each returns nil when its receiver is nil or has no entry,
// and marks what it returns as used.

func (p *pkgDocs) world(name string) *worldDocs {
	if p == nil {
		return nil
	}
	w := p.Worlds[name]
	if w != nil {
		w.used = true
	}
	return w
}

func (p *pkgDocs) iface(name string) *ifaceDocs {
	if p == nil {
		return nil
	}
	return useIface(p.Interfaces[name])
}

func useIface(i *ifaceDocs) *ifaceDocs {
	if i != nil {
		i.used = true
	}
	return i
}

func useFunc(f *funcDocs) *funcDocs {
	if f != nil {
		f.used = true
	}
	return f
}

func (i *ifaceDocs) typ(name string) *typeDocs {
	if i == nil {
		return nil
	}
	t := i.Types[name]
	if t != nil {
		t.used = true
	}
	return t
}

// fn looks up a function by its name in the binary. The section names
// resource members [constructor]r, [method]r.m, [static]r.m, also when
// the binary names them [async method]r.m.
func (i *ifaceDocs) fn(name string) *itemDocs {
	if i == nil {
		return nil
	}
	f := i.Funcs[name]
	if f == nil {
		switch kind, res, m, async := SplitMember(name); {
		case async && kind == FuncMethod:
			f = i.Funcs["[method]"+res+"."+m]
		case async && kind == FuncStatic:
			f = i.Funcs["[static]"+res+"."+m]
		}
	}
	if f == nil {
		return nil
	}
	f.used = true
	return &f.itemDocs
}

// body is the view of a world's own types and resource members.
func (w *worldDocs) body() *ifaceDocs {
	if w == nil {
		return nil
	}
	return &ifaceDocs{Types: w.Types, Funcs: w.Funcs}
}

// worldFunc finds the entry of a function a world imports or exports:
// an import's in "funcs", an export's in "func_exports", or in "funcs"
// when no function import has its name (as wit-parser reads them).
func (w *worldDocs) worldFunc(export, importNamed bool, name string) *itemDocs {
	if w == nil {
		return nil
	}
	var f *funcDocs
	if export {
		f = useFunc(w.FuncExports[name])
	}
	if f == nil && (!export || !importNamed) {
		f = useFunc(w.Funcs[name])
	}
	if f == nil {
		return nil
	}
	return &f.itemDocs
}

// inline finds the entry of an inline interface a world imports or
// exports, likewise in "interfaces" and "interface_exports".
func (w *worldDocs) inline(export, importNamed bool, name string) *ifaceDocs {
	if w == nil {
		return nil
	}
	var i *ifaceDocs
	if export {
		i = useIface(w.InterfaceExports[name])
	}
	if i == nil && (!export || !importNamed) {
		i = useIface(w.Interfaces[name])
	}
	return i
}

// byID is the docs and gate of an interface imported or exported by ID.
func (w *worldDocs) byID(export bool, id string) (docs *string, g *gateJSON) {
	if w == nil {
		return nil, nil
	}
	dm, sm := w.ImportDocs, w.ImportStability
	if export {
		dm, sm = w.ExportDocs, w.ExportStability
	}
	if t := dm[id]; t != nil {
		t.used = true
		docs = &t.s
	}
	if s := sm[id]; s != nil {
		s.used = true
		g = s
	}
	return docs, g
}

// prefix renders docs and a gate as the lines before an item: each line
// followed by a newline and ind, so `ind + prefix + item` indents them
// all. pkgVersion is the package's version: a @since newer than it is
// refused here, where the error can name the section.
func prefix(docs *string, g *gateJSON, pkgVersion, ind string) (string, error) {
	var b strings.Builder
	if docs != nil && *docs != "" {
		text := strings.ReplaceAll(*docs, "\r\n", "\n")
		for _, r := range text {
			if r != '\n' && (badRune(r) || r == utf8.RuneError) {
				if r == utf8.RuneError {
					return "", fmt.Errorf("%s section: docs hold invalid UTF-8 or U+FFFD, which a WIT comment cannot hold", packageDocsSection)
				}
				return "", fmt.Errorf("%s section: docs hold the character %U, which a WIT comment cannot hold", packageDocsSection, r)
			}
		}
		for _, ln := range strings.Split(text, "\n") {
			if ln == "" {
				b.WriteString("///\n" + ind)
			} else {
				b.WriteString("/// " + ln + "\n" + ind)
			}
		}
	}
	if g != nil && g.g != nil {
		s := g.g
		if s.Since != "" {
			if pkgVersion == "" || compareVersions(s.Since, pkgVersion) > 0 {
				return "", fmt.Errorf("%s section: @since(version = %s) is not a released version of the package (version %q)", packageDocsSection, s.Since, pkgVersion)
			}
			b.WriteString("@since(version = " + s.Since)
			if s.Feature != "" {
				b.WriteString(", feature = " + ident(s.Feature))
			}
			b.WriteString(")\n" + ind)
		}
		if s.Unstable != "" {
			b.WriteString("@unstable(feature = " + ident(s.Unstable) + ")\n" + ind)
		}
		if s.Deprecated != "" {
			b.WriteString("@deprecated(version = " + s.Deprecated + ")\n" + ind)
		}
	}
	return b.String(), nil
}

// itemPrefix is prefix for an item's entry (nil: none).
func itemPrefix(m *itemDocs, pkgVersion, ind string) (string, error) {
	if m == nil {
		return "", nil
	}
	return prefix(m.Docs, m.Stability, pkgVersion, ind)
}

// unused reports the first entry (in name order) that named no item of
// the package.
func (p *pkgDocs) unused() error {
	if p == nil {
		return nil
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s section: "+format, append([]any{packageDocsSection}, args...)...)
	}
	for _, n := range docKeys(p.Interfaces) {
		i := p.Interfaces[n]
		if i == nil {
			continue
		}
		if !i.used {
			return fail("the package has no interface %q", n)
		}
		if err := i.unused(fmt.Sprintf("interface %q", n), fail); err != nil {
			return err
		}
	}
	for _, n := range docKeys(p.Worlds) {
		w := p.Worlds[n]
		if w == nil {
			continue
		}
		if !w.used {
			return fail("the package has no world %q", n)
		}
		where := fmt.Sprintf("world %q", n)
		if err := w.body().unused(where, fail); err != nil {
			return err
		}
		for _, m := range []struct {
			entries map[string]*ifaceDocs
			what    string
		}{{w.Interfaces, "imports or exports no inline interface"}, {w.InterfaceExports, "exports no inline interface"}} {
			for _, k := range docKeys(m.entries) {
				i := m.entries[k]
				if i == nil {
					continue
				}
				if !i.used {
					return fail("%s %s %q", where, m.what, k)
				}
				if err := i.unused(fmt.Sprintf("interface %q of %s", k, where), fail); err != nil {
					return err
				}
			}
		}
		for _, k := range docKeys(w.FuncExports) {
			if f := w.FuncExports[k]; f != nil && !f.used {
				return fail("%s exports no function %q", where, k)
			}
		}
		for _, m := range []struct {
			docs  map[string]*textJSON
			gates map[string]*gateJSON
			what  string
		}{{w.ImportDocs, w.ImportStability, "imports"}, {w.ExportDocs, w.ExportStability, "exports"}} {
			for _, k := range docKeys(m.docs) {
				if t := m.docs[k]; t != nil && !t.used {
					return fail("%s %s no interface %q", where, m.what, k)
				}
			}
			for _, k := range docKeys(m.gates) {
				if g := m.gates[k]; g != nil && !g.used {
					return fail("%s %s no interface %q", where, m.what, k)
				}
			}
		}
	}
	return nil
}

func (i *ifaceDocs) unused(where string, fail func(string, ...any) error) error {
	for _, k := range docKeys(i.Types) {
		t := i.Types[k]
		if t == nil {
			continue
		}
		if !t.used {
			return fail("%s has no type %q", where, k)
		}
		for _, f := range docKeys(t.Items) {
			if x := t.Items[f]; x != nil && !x.used {
				return fail("type %q of %s has no field, case or flag %q", k, where, f)
			}
		}
	}
	for _, k := range docKeys(i.Funcs) {
		if f := i.Funcs[k]; f != nil && !f.used {
			return fail("%s has no function %q", where, k)
		}
	}
	return nil
}

func docKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
