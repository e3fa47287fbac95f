package wit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The deep comparison of a resolution with wasm-tools' NAME.wit.json:
// every package, interface, world, type definition, function, world item,
// stability and doc comment the json states is turned into lines of text,
// and so is the resolved model; the two sets of lines must be the same.
//
// The two models differ in ways that are not defects, and the lines are
// written so that those differences do not show:
//   - an alias (`type a = b`, `type l = list<u8>`) is the target type itself
//     here: a reference to a type is written as the nominal type it ends at
//     (a record, variant, enum, flags or resource, by owner and name) or as
//     its structure;
//   - a resource named in a type position is `own<r>`, here and there;
//   - docs: wasm-tools takes every comment before an item as its docs, this
//     parser only `///` and `/** */` ones (WIT.md's doc comments); docs are
//     compared both ways, but in the inputs of corpusPlainDocs (whose only
//     comments are plain ones) an item may have docs in the json only;
//   - order: wasm-tools lists a package's interfaces and an interface's
//     types in dependency order and a world's types before its functions,
//     this parser in declaration order (docs/wit.md); lists of names are
//     compared as sets;
//   - the stability of a world's interface imports in the inputs of
//     corpusItemStability (see there).

// corpusPlainDocs: inputs documented with `//` comments only, which
// wasm-tools takes as docs and WIT.md does not.
var corpusPlainDocs = map[string]bool{
	"comments.wit":                    true,
	"maps.wit":                        true,
	"multi-package-gated-include.wit": true,
}

// corpusItemStability: inputs where wasm-tools gives a world's interface
// imports another stability than this parser: the gate of the world `use`
// that imports it implicitly, none for an `@since` item included from a
// world of another package, and the first gate when the same interface is
// included twice; this parser keeps the gate of the item as written, none
// for an implicit import. The gate of a world item decides nothing here
// (the interface's own gate does); see the report of p249.
var corpusItemStability = map[string]bool{
	"multi-package-gated-include.wit": true,
}

// nameSet is a list of names in a line, sorted (see the order note above).
func nameSet(ss []string) string {
	c := append([]string(nil), ss...)
	sort.Strings(c)
	return strings.Join(c, " ")
}

// jDocs is the docs of an item of the json.
type jDocs struct {
	Contents *string `json:"contents"`
}

type jStability struct {
	Stable *struct {
		Since      string `json:"since"`
		Feature    string `json:"feature"`
		Deprecated string `json:"deprecated"`
	} `json:"stable"`
	Unstable *struct {
		Feature    string `json:"feature"`
		Deprecated string `json:"deprecated"`
	} `json:"unstable"`
}

func (s *jStability) String() string {
	if s == nil {
		return ""
	}
	switch {
	case s.Stable != nil:
		return gateString(&Stability{Since: s.Stable.Since, Feature: s.Stable.Feature, Deprecated: s.Stable.Deprecated})
	case s.Unstable != nil:
		return gateString(&Stability{Unstable: s.Unstable.Feature, Deprecated: s.Unstable.Deprecated})
	}
	return "?"
}

func gateString(g *Stability) string {
	if g == nil {
		return ""
	}
	var parts []string
	if g.Since != "" {
		parts = append(parts, "since="+g.Since)
	}
	if g.Feature != "" {
		parts = append(parts, "feature="+g.Feature)
	}
	if g.Unstable != "" {
		parts = append(parts, "unstable="+g.Unstable)
	}
	if g.Deprecated != "" {
		parts = append(parts, "deprecated="+g.Deprecated)
	}
	if len(parts) == 0 {
		return ""
	}
	return " @" + strings.Join(parts, ",")
}

type jTypeDef struct {
	Name      *string         `json:"name"`
	Kind      json.RawMessage `json:"kind"`
	Owner     map[string]int  `json:"owner"`
	Docs      jDocs           `json:"docs"`
	Stability *jStability     `json:"stability"`
}

type jFunc struct {
	Name   string          `json:"name"`
	Kind   json.RawMessage `json:"kind"`
	Params []struct {
		Name string          `json:"name"`
		Type json.RawMessage `json:"type"`
	} `json:"params"`
	Result    json.RawMessage `json:"result"`
	Docs      jDocs           `json:"docs"`
	Stability *jStability     `json:"stability"`
}

type jIface struct {
	Name      *string          `json:"name"`
	Types     json.RawMessage  `json:"types"`
	Functions json.RawMessage  `json:"functions"`
	Docs      jDocs            `json:"docs"`
	Stability *jStability      `json:"stability"`
	Package   *int             `json:"package"`
	funcs     map[string]jFunc // from Functions
}

type jWorldItem struct {
	Interface *struct {
		ID        int         `json:"id"`
		Stability *jStability `json:"stability"`
	} `json:"interface"`
	Function *jFunc `json:"function"`
	Type     *int   `json:"type"`
}

type jWorld struct {
	Name      string          `json:"name"`
	Imports   json.RawMessage `json:"imports"`
	Exports   json.RawMessage `json:"exports"`
	Package   int             `json:"package"`
	Docs      jDocs           `json:"docs"`
	Stability *jStability     `json:"stability"`
}

type jPackage struct {
	Name       string          `json:"name"`
	Docs       jDocs           `json:"docs"`
	Interfaces json.RawMessage `json:"interfaces"`
	Worlds     json.RawMessage `json:"worlds"`
}

type jResolve struct {
	Worlds     []jWorld   `json:"worlds"`
	Interfaces []jIface   `json:"interfaces"`
	Types      []jTypeDef `json:"types"`
	Packages   []jPackage `json:"packages"`

	inline map[int]string // unnamed interface → owner "world#name"
}

// orderedObject decodes a JSON object keeping the order of its keys.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, m, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	if _, err := d.Token(); err != nil {
		return nil, nil, err
	}
	var keys []string
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, nil, err
		}
		k := tok.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
		m[k] = v
	}
	return keys, m, nil
}

func orderedInts(raw json.RawMessage) ([]string, map[string]int, error) {
	keys, m, err := orderedObject(raw)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]int{}
	for k, v := range m {
		n, err := strconv.Atoi(string(v))
		if err != nil {
			return nil, nil, err
		}
		out[k] = n
	}
	return keys, out, nil
}

func (j *jResolve) pkgName(i int) string {
	if i < 0 || i >= len(j.Packages) {
		return "?"
	}
	return j.Packages[i].Name
}

func joinID(pkg, name string) string {
	p, v, ok := strings.Cut(pkg, "@")
	s := p + "/" + name
	if ok {
		s += "@" + v
	}
	return s
}

func (j *jResolve) ifaceOwner(i int) string {
	if i < 0 || i >= len(j.Interfaces) {
		return "?"
	}
	ji := j.Interfaces[i]
	if ji.Name == nil {
		if s, ok := j.inline[i]; ok {
			return s
		}
		return "?inline"
	}
	if ji.Package == nil {
		return "?"
	}
	return joinID(j.pkgName(*ji.Package), *ji.Name)
}

func (j *jResolve) worldID(i int) string {
	if i < 0 || i >= len(j.Worlds) {
		return "?"
	}
	return joinID(j.pkgName(j.Worlds[i].Package), j.Worlds[i].Name)
}

func (j *jResolve) owner(t jTypeDef) string {
	if i, ok := t.Owner["interface"]; ok {
		return j.ifaceOwner(i)
	}
	if i, ok := t.Owner["world"]; ok {
		return j.worldID(i)
	}
	return ""
}

// ref describes a type reference of the json: a primitive's name or a
// type index.
func (j *jResolve) ref(raw json.RawMessage, depth int) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "_"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var i int
	if err := json.Unmarshal(raw, &i); err != nil || i < 0 || i >= len(j.Types) {
		return "?" + string(raw)
	}
	if depth > 100 {
		return "?deep"
	}
	t := j.Types[i]
	var ks string
	if json.Unmarshal(t.Kind, &ks) == nil && ks == "resource" {
		return "own<" + j.owner(t) + "." + *t.Name + ">"
	}
	var k map[string]json.RawMessage
	_ = json.Unmarshal(t.Kind, &k)
	for _, nominal := range []string{"record", "variant", "enum", "flags"} {
		if _, ok := k[nominal]; ok && t.Name != nil {
			return j.owner(t) + "." + *t.Name
		}
	}
	return j.structure(t, depth+1)
}

// structure describes the kind of a json type, its members by ref.
func (j *jResolve) structure(t jTypeDef, depth int) string {
	var ks string
	if json.Unmarshal(t.Kind, &ks) == nil {
		return ks
	}
	var k map[string]json.RawMessage
	if err := json.Unmarshal(t.Kind, &k); err != nil || len(k) != 1 {
		return "?kind " + string(t.Kind)
	}
	for name, v := range k {
		switch name {
		case "type":
			return j.ref(v, depth)
		case "list", "option", "future", "stream":
			return name + "<" + j.ref(v, depth) + ">"
		case "fixed-length-list", "map":
			var pair []json.RawMessage
			_ = json.Unmarshal(v, &pair)
			if len(pair) != 2 {
				return "?" + name
			}
			if name == "map" {
				return "map<" + j.ref(pair[0], depth) + ", " + j.ref(pair[1], depth) + ">"
			}
			return "list<" + j.ref(pair[0], depth) + ", " + string(pair[1]) + ">"
		case "handle":
			var h map[string]json.RawMessage
			_ = json.Unmarshal(v, &h)
			for hk, hv := range h {
				inner := strings.TrimSuffix(strings.TrimPrefix(j.ref(hv, depth), "own<"), ">")
				return hk + "<" + inner + ">"
			}
		case "result":
			var r struct{ Ok, Err json.RawMessage }
			_ = json.Unmarshal(v, &r)
			return "result<" + j.ref(r.Ok, depth) + ", " + j.ref(r.Err, depth) + ">"
		case "tuple":
			var r struct{ Types []json.RawMessage }
			_ = json.Unmarshal(v, &r)
			var parts []string
			for _, e := range r.Types {
				parts = append(parts, j.ref(e, depth))
			}
			return "tuple<" + strings.Join(parts, ", ") + ">"
		case "record":
			var r struct {
				Fields []struct {
					Name string
					Type json.RawMessage
					Docs jDocs
				}
			}
			_ = json.Unmarshal(v, &r)
			var parts []string
			for _, f := range r.Fields {
				parts = append(parts, f.Name+": "+j.ref(f.Type, depth)+docsNote(f.Docs.Contents))
			}
			return "record{" + strings.Join(parts, ", ") + "}"
		case "variant":
			var r struct {
				Cases []struct {
					Name string
					Type json.RawMessage
					Docs jDocs
				}
			}
			_ = json.Unmarshal(v, &r)
			var parts []string
			for _, c := range r.Cases {
				parts = append(parts, c.Name+"("+j.ref(c.Type, depth)+")"+docsNote(c.Docs.Contents))
			}
			return "variant{" + strings.Join(parts, ", ") + "}"
		case "enum", "flags":
			var r struct {
				Cases []struct {
					Name string
					Docs jDocs
				}
				Flags []struct {
					Name string
					Docs jDocs
				}
			}
			_ = json.Unmarshal(v, &r)
			var parts []string
			for _, c := range append(r.Cases, r.Flags...) {
				parts = append(parts, c.Name+docsNote(c.Docs.Contents))
			}
			return name + "{" + strings.Join(parts, ", ") + "}"
		}
		return "?kind " + name
	}
	return "?"
}

// docsNote is the docs of a member inside a type's line.
func docsNote(d *string) string {
	if d == nil || *d == "" {
		return ""
	}
	return " /**" + strconv.Quote(*d) + "*/"
}

func docsNoteS(d string) string { return docsNote(&d) }

func (j *jResolve) funcLine(f jFunc) string {
	var kind string
	var ks string
	if json.Unmarshal(f.Kind, &ks) == nil {
		kind = ks
	} else {
		var k map[string]int
		_ = json.Unmarshal(f.Kind, &k)
		for n := range k {
			kind = n
		}
	}
	var ps []string
	for _, p := range f.Params {
		ps = append(ps, p.Name+": "+j.ref(p.Type, 0))
	}
	s := "func " + f.Name + " " + kind + "(" + strings.Join(ps, ", ") + ")"
	if len(f.Result) > 0 && string(f.Result) != "null" {
		s += " -> " + j.ref(f.Result, 0)
	}
	return s + f.Stability.String()
}

// corpusLines is the described model: "where: what" lines, and docs
// separately (key → docs).
type corpusLines struct {
	lines []string
	docs  map[string]string
}

func (c *corpusLines) add(format string, args ...any) {
	c.lines = append(c.lines, fmt.Sprintf(format, args...))
}

func (c *corpusLines) doc(key string, d *string) {
	if d != nil && *d != "" {
		c.docs[key] = *d
	}
}

func (j *jResolve) describe() (*corpusLines, error) {
	c := &corpusLines{docs: map[string]string{}}
	j.inline = map[int]string{}
	// Inline interfaces are named by the world item that holds them.
	for wi, w := range j.Worlds {
		for _, raw := range []json.RawMessage{w.Imports, w.Exports} {
			keys, m, err := orderedObject(raw)
			if err != nil {
				return nil, err
			}
			for _, k := range keys {
				var it jWorldItem
				if err := json.Unmarshal(m[k], &it); err != nil {
					return nil, err
				}
				if it.Interface != nil && it.Interface.ID < len(j.Interfaces) && j.Interfaces[it.Interface.ID].Name == nil {
					j.inline[it.Interface.ID] = j.worldID(wi) + "#" + k
				}
			}
		}
	}
	for i := range j.Interfaces {
		ji := &j.Interfaces[i]
		keys, m, err := orderedObject(ji.Functions)
		if err != nil {
			return nil, err
		}
		ji.funcs = map[string]jFunc{}
		for _, k := range keys {
			var f jFunc
			if err := json.Unmarshal(m[k], &f); err != nil {
				return nil, err
			}
			ji.funcs[k] = f
		}
	}
	describeIface := func(where string, i int) error {
		ji := j.Interfaces[i]
		c.add("%s%s", where, ji.Stability.String())
		c.doc(where, ji.Docs.Contents)
		tkeys, tm, err := orderedInts(ji.Types)
		if err != nil {
			return err
		}
		c.add("%s types %s", where, nameSet(tkeys))
		for _, tk := range tkeys {
			t := j.Types[tm[tk]]
			c.add("%s type %s = %s%s", where, tk, j.structure(t, 0), t.Stability.String())
			c.doc(where+" type "+tk, t.Docs.Contents)
		}
		fkeys, _, _ := orderedObject(ji.Functions)
		c.add("%s funcs %s", where, nameSet(fkeys))
		for _, fk := range fkeys {
			f := ji.funcs[fk]
			c.add("%s %s", where, j.funcLine(f))
			c.doc(where+" func "+fk, f.Docs.Contents)
		}
		return nil
	}
	for _, p := range j.Packages {
		c.add("package %s", p.Name)
		c.doc("package "+p.Name, p.Docs.Contents)
		ikeys, im, err := orderedInts(p.Interfaces)
		if err != nil {
			return nil, err
		}
		c.add("package %s interfaces %s", p.Name, nameSet(ikeys))
		for _, k := range ikeys {
			if err := describeIface("interface "+joinID(p.Name, k), im[k]); err != nil {
				return nil, err
			}
		}
		wkeys, wm, err := orderedInts(p.Worlds)
		if err != nil {
			return nil, err
		}
		c.add("package %s worlds %s", p.Name, nameSet(wkeys))
		for _, k := range wkeys {
			w := j.Worlds[wm[k]]
			wid := joinID(p.Name, k)
			c.add("world %s%s", wid, w.Stability.String())
			c.doc("world "+wid, w.Docs.Contents)
			for dir, raw := range map[string]json.RawMessage{"import": w.Imports, "export": w.Exports} {
				keys, m, err := orderedObject(raw)
				if err != nil {
					return nil, err
				}
				var items []string
				for _, key := range keys {
					var it jWorldItem
					if err := json.Unmarshal(m[key], &it); err != nil {
						return nil, err
					}
					name := key
					where := "world " + wid + " " + dir + " " + name
					switch {
					case it.Interface != nil:
						if strings.HasPrefix(key, "interface-") {
							name = j.ifaceOwner(it.Interface.ID)
							where = "world " + wid + " " + dir + " " + name
						}
						ji := j.Interfaces[it.Interface.ID]
						if ji.Name == nil {
							c.add("%s: inline interface%s", where, it.Interface.Stability.String())
							if err := describeIface(where+" interface", it.Interface.ID); err != nil {
								return nil, err
							}
						} else {
							c.add("%s: interface %s%s", where, j.ifaceOwner(it.Interface.ID), it.Interface.Stability.String())
						}
					case it.Function != nil:
						c.add("%s: %s", where, j.funcLine(*it.Function))
						c.doc(where, it.Function.Docs.Contents)
					case it.Type != nil:
						t := j.Types[*it.Type]
						c.add("%s: type %s%s", where, j.structure(t, 0), t.Stability.String())
						c.doc(where, t.Docs.Contents)
					}
					items = append(items, name)
				}
				c.add("world %s %ss %s", wid, dir, nameSet(items))
			}
		}
	}
	sort.Strings(c.lines)
	return c, nil
}

// The resolved model, described the same way.

func goRef(t *Type) string {
	if t == nil {
		return "_"
	}
	if t.Resource != nil && t.Kind == KindOwn && t.Name != "" {
		return "own<" + t.Resource.Owner + "." + t.Resource.Name + ">"
	}
	switch t.Kind {
	case KindRecord, KindVariant, KindEnum, KindFlags:
		if t.Name != "" {
			return t.Owner + "." + t.Name
		}
	}
	return goStructure(t)
}

func goStructure(t *Type) string {
	switch t.Kind {
	case KindList:
		if t.Len > 0 {
			return "list<" + goRef(t.Elem) + ", " + strconv.FormatUint(uint64(t.Len), 10) + ">"
		}
		return "list<" + goRef(t.Elem) + ">"
	case KindOption, KindFuture, KindStream:
		return t.Kind.String() + "<" + goRef(t.Elem) + ">"
	case KindMap:
		return "map<" + goRef(t.Key) + ", " + goRef(t.Elem) + ">"
	case KindResult:
		return "result<" + goRef(t.Ok) + ", " + goRef(t.Err) + ">"
	case KindTuple:
		var parts []string
		for _, e := range t.Tuple {
			parts = append(parts, goRef(e))
		}
		return "tuple<" + strings.Join(parts, ", ") + ">"
	case KindOwn, KindBorrow:
		if t.Name != "" {
			return "resource"
		}
		return t.Kind.String() + "<" + t.Resource.Owner + "." + t.Resource.Name + ">"
	case KindRecord:
		var parts []string
		for _, f := range t.Fields {
			parts = append(parts, f.Name+": "+goRef(f.Type)+docsNoteS(f.Docs))
		}
		return "record{" + strings.Join(parts, ", ") + "}"
	case KindVariant:
		var parts []string
		for _, c := range t.Cases {
			parts = append(parts, c.Name+"("+goRef(c.Type)+")"+docsNoteS(c.Docs))
		}
		return "variant{" + strings.Join(parts, ", ") + "}"
	case KindEnum, KindFlags:
		var parts []string
		for i, n := range t.Names {
			d := ""
			if t.NameDocs != nil {
				d = t.NameDocs[i]
			}
			parts = append(parts, n+docsNoteS(d))
		}
		return t.Kind.String() + "{" + strings.Join(parts, ", ") + "}"
	}
	return t.Kind.String()
}

func goFuncLine(f *Func) string {
	kind := map[FuncKind]string{FuncFree: "freestanding", FuncMethod: "method", FuncStatic: "static", FuncConstructor: "constructor"}[f.Kind]
	if f.Async {
		kind = "async-" + kind
	}
	var ps []string
	for _, p := range f.Params {
		ps = append(ps, p.Name+": "+goRef(p.Type))
	}
	s := "func " + f.Name + " " + kind + "(" + strings.Join(ps, ", ") + ")"
	if f.Result != nil {
		s += " -> " + goRef(f.Result)
	}
	return s + gateString(f.Gate)
}

func goTypeDefStructure(td *TypeDef) string {
	if td.From != nil || td.Alias {
		return goRef(td.Type)
	}
	return goStructure(td.Type)
}

func describeResolved(res *Resolved) *corpusLines {
	c := &corpusLines{docs: map[string]string{}}
	doc := func(key, d string) { c.doc(key, &d) }
	describeIface := func(where string, i *Interface) {
		c.add("%s%s", where, gateString(i.Gate))
		doc(where, i.Docs)
		var tnames, fnames []string
		var members []*Func
		for _, td := range i.Types {
			tnames = append(tnames, td.Name)
			c.add("%s type %s = %s%s", where, td.Name, goTypeDefStructure(td), gateString(td.Gate))
			doc(where+" type "+td.Name, td.Docs)
			if td.From == nil && !td.Alias && td.Type.Resource != nil {
				members = append(members, td.Type.Resource.Methods...)
			}
		}
		c.add("%s types %s", where, nameSet(tnames))
		for _, f := range append(i.Funcs, members...) {
			fnames = append(fnames, f.Name)
			c.add("%s %s", where, goFuncLine(f))
			doc(where+" func "+f.Name, f.Docs)
		}
		c.add("%s funcs %s", where, nameSet(fnames))
	}
	for _, p := range res.Packages {
		pn := p.Name.String()
		c.add("package %s", pn)
		doc("package "+pn, p.Docs)
		var inames, wnames []string
		for _, i := range p.Interfaces {
			inames = append(inames, i.Name)
			describeIface("interface "+i.ID(), i)
		}
		c.add("package %s interfaces %s", pn, nameSet(inames))
		for _, w := range p.Worlds {
			wnames = append(wnames, w.Name)
			wid := w.ID()
			c.add("world %s%s", wid, gateString(w.Gate))
			doc("world "+wid, w.Docs)
			for dir, list := range map[string][]*WorldItem{"import": w.Imports, "export": w.Exports} {
				var items []string
				add := func(name string) { items = append(items, name) }
				for _, it := range list {
					where := "world " + wid + " " + dir + " " + it.Name
					switch {
					case it.Interface != nil:
						if it.Interface.Name == "" {
							c.add("%s: inline interface%s", where, gateString(it.Gate))
							describeIface(where+" interface", it.Interface)
						} else {
							c.add("%s: interface %s%s", where, it.Interface.ID(), gateString(it.Gate))
						}
						add(it.Name)
					case it.Func != nil:
						c.add("%s: %s", where, goFuncLine(it.Func))
						doc(where, it.Func.Docs)
						add(it.Name)
					case it.Type != nil:
						c.add("%s: type %s%s", where, goTypeDefStructure(it.Type), gateString(it.Type.Gate))
						doc(where, it.Type.Docs)
						add(it.Name)
						// wasm-tools lists a resource's members as
						// world functions after it.
						if it.Type.From == nil && !it.Type.Alias && it.Type.Type.Resource != nil {
							for _, m := range it.Type.Type.Resource.Methods {
								mw := "world " + wid + " " + dir + " " + m.Name
								c.add("%s: %s", mw, goFuncLine(m))
								doc(mw, m.Docs)
								add(m.Name)
							}
						}
					}
				}
				c.add("world %s %ss %s", wid, dir, nameSet(items))
			}
		}
		c.add("package %s worlds %s", pn, nameSet(wnames))
	}
	sort.Strings(c.lines)
	return c
}

// checkCorpusDeep compares res with wasm-tools' resolution in data.
func checkCorpusDeep(t *testing.T, input string, res *Resolved, data []byte) {
	t.Helper()
	var j jResolve
	if err := json.Unmarshal(data, &j); err != nil {
		t.Errorf("%s: bad json: %v", input, err)
		return
	}
	want, err := j.describe()
	if err != nil {
		t.Errorf("%s: json: %v", input, err)
		return
	}
	got := describeResolved(res)
	name := filepath.Base(input)
	if corpusItemStability[name] {
		for _, c := range []*corpusLines{want, got} {
			for i, l := range c.lines {
				if w, iface, ok := strings.Cut(l, ": interface "); ok {
					id, _, _ := strings.Cut(iface, " @")
					c.lines[i] = w + ": interface " + id
				}
			}
		}
	}
	wl, gl := map[string]bool{}, map[string]bool{}
	for _, l := range want.lines {
		wl[l] = true
	}
	for _, l := range got.lines {
		gl[l] = true
	}
	for _, l := range want.lines {
		if !gl[l] {
			t.Errorf("%s: missing:   %s", name, l)
		}
	}
	for _, l := range got.lines {
		if !wl[l] {
			t.Errorf("%s: unexpected: %s", name, l)
		}
	}
	keys := map[string]bool{}
	for k := range want.docs {
		keys[k] = true
	}
	for k := range got.docs {
		keys[k] = true
	}
	for k := range keys {
		w, g := want.docs[k], got.docs[k]
		if w == g || g == "" && corpusPlainDocs[name] {
			continue
		}
		t.Errorf("%s: docs of %s: %q, wasm-tools %q", name, k, g, w)
	}
}
