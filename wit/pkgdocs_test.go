package wit

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/component/binary"
	"github.com/aios-host/aios-host/component/wat"
)

// ---- a binary writer for type-only components (tests only) ----

// encodeComponent writes the binary form of a component of types,
// aliases, imports, exports and custom sections (what package
// component/binary reads back), so tests can build WIT packages in their
// binary encoding from text (component/wat) without wasm-tools.
func encodeComponent(t testing.TB, c *binary.Component) []byte {
	t.Helper()
	out := []byte("\x00asm\x0d\x00\x01\x00")
	for i := 0; i < len(c.Defs); {
		k := c.Defs[i].Kind
		if k == binary.DefCustom {
			cu := c.Defs[i].Custom
			out = appendSection(out, 0, append(encName(nil, cu.Name), cu.Data...))
			i++
			continue
		}
		var items [][]byte
		j := i
		for ; j < len(c.Defs) && c.Defs[j].Kind == k; j++ {
			d := c.Defs[j]
			var b []byte
			switch k {
			case binary.DefType:
				b = encTypeDef(t, nil, d.Type)
			case binary.DefAlias:
				b = encAlias(nil, d.Alias)
			case binary.DefImport:
				b = encExtern(encExternName(nil, d.Import.Name), d.Import.Extern)
			case binary.DefExport:
				b = encExternName(nil, d.Export.Name)
				b = append(encSort(b, d.Export.Ref.Sort, d.Export.Ref.CoreSort), uleb(nil, uint64(d.Export.Ref.Idx))...)
				if d.Export.Extern != nil {
					t.Fatal("encodeComponent: export type ascriptions are not written")
				}
				b = append(b, 0x00)
			default:
				t.Fatalf("encodeComponent: a %s definition is not written", k)
			}
			items = append(items, b)
		}
		id := map[binary.DefKind]byte{binary.DefType: 7, binary.DefAlias: 6, binary.DefImport: 10, binary.DefExport: 11}[k]
		body := uleb(nil, uint64(len(items)))
		for _, it := range items {
			body = append(body, it...)
		}
		out = appendSection(out, id, body)
		i = j
	}
	return out
}

func appendSection(out []byte, id byte, body []byte) []byte {
	out = append(out, id)
	out = uleb(out, uint64(len(body)))
	return append(out, body...)
}

func uleb(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

// sleb writes a non-negative s33 (a type index as a value type).
func sleb(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func encName(b []byte, s string) []byte { return append(uleb(b, uint64(len(s))), s...) }

func encExternName(b []byte, s string) []byte { return encName(append(b, 0x00), s) }

func encSort(b []byte, s binary.Sort, cs binary.CoreSort) []byte {
	if s == binary.SortCore {
		return append(b, 0x00, byte(cs))
	}
	return append(b, byte(s))
}

func encVal(b []byte, v *binary.ValType) []byte {
	if v.Prim != 0 {
		return append(b, v.Prim)
	}
	return sleb(b, uint64(v.Idx))
}

func encOptVal(b []byte, v *binary.ValType) []byte {
	if v == nil {
		return append(b, 0x00)
	}
	return encVal(append(b, 0x01), v)
}

func encAlias(b []byte, a *binary.Alias) []byte {
	b = encSort(b, a.Sort, a.CoreSort)
	switch a.Kind {
	case binary.AliasOuter:
		return uleb(uleb(append(b, 0x02), uint64(a.Count)), uint64(a.Idx))
	case binary.AliasCoreExport:
		b = append(b, 0x01)
	default:
		b = append(b, 0x00)
	}
	return encName(uleb(b, uint64(a.Instance)), a.Name)
}

func encExtern(b []byte, e binary.ExternDesc) []byte {
	switch e.Sort {
	case binary.SortCore:
		return uleb(append(b, 0x00, 0x11), uint64(e.Idx))
	case binary.SortType:
		if e.SubRes {
			return append(b, 0x03, 0x01)
		}
		return uleb(append(b, 0x03, 0x00), uint64(e.Idx))
	}
	return uleb(append(b, byte(e.Sort)), uint64(e.Idx))
}

func encTypeDef(t testing.TB, b []byte, td *binary.TypeDef) []byte {
	labels := func(b []byte) []byte {
		b = uleb(b, uint64(len(td.Labels)))
		for _, l := range td.Labels {
			b = encName(b, l)
		}
		return b
	}
	switch td.Kind {
	case binary.TypePrim:
		return append(b, td.Prim)
	case binary.TypeErrorContext:
		return append(b, binary.PrimErrorContext)
	case binary.TypeRecord:
		b = uleb(append(b, 0x72), uint64(len(td.Labels)))
		for i, l := range td.Labels {
			b = encVal(encName(b, l), td.Types[i])
		}
		return b
	case binary.TypeVariant:
		b = uleb(append(b, 0x71), uint64(len(td.Labels)))
		for i, l := range td.Labels {
			b = append(encOptVal(encName(b, l), td.Types[i]), 0x00)
		}
		return b
	case binary.TypeList:
		if td.Len > 0 {
			return uleb(encVal(append(b, 0x67), td.Types[0]), uint64(td.Len))
		}
		return encVal(append(b, 0x70), td.Types[0])
	case binary.TypeOption:
		return encVal(append(b, 0x6b), td.Types[0])
	case binary.TypeTuple:
		b = uleb(append(b, 0x6f), uint64(len(td.Types)))
		for _, v := range td.Types {
			b = encVal(b, v)
		}
		return b
	case binary.TypeFlags:
		return labels(append(b, 0x6e))
	case binary.TypeEnum:
		return labels(append(b, 0x6d))
	case binary.TypeResult:
		return encOptVal(encOptVal(append(b, 0x6a), td.Types[0]), td.Types[1])
	case binary.TypeOwn:
		return uleb(append(b, 0x69), uint64(td.Idx))
	case binary.TypeBorrow:
		return uleb(append(b, 0x68), uint64(td.Idx))
	case binary.TypeStream, binary.TypeFuture:
		op := byte(0x66)
		if td.Kind == binary.TypeFuture {
			op = 0x65
		}
		var v *binary.ValType
		if len(td.Types) > 0 {
			v = td.Types[0]
		}
		return encOptVal(append(b, op), v)
	case binary.TypeMap:
		return encVal(encVal(append(b, 0x63), td.Types[0]), td.Types[1])
	case binary.TypeFunc:
		op := byte(0x40)
		if td.Async {
			op = 0x43
		}
		b = uleb(append(b, op), uint64(len(td.Labels)))
		for i, l := range td.Labels {
			b = encVal(encName(b, l), td.Types[i])
		}
		if td.Result != nil {
			return encVal(append(b, 0x00), td.Result)
		}
		return append(b, 0x01, 0x00)
	case binary.TypeComponent, binary.TypeInstance:
		op := byte(0x41)
		if td.Kind == binary.TypeInstance {
			op = 0x42
		}
		b = uleb(append(b, op), uint64(len(td.Decls)))
		for _, d := range td.Decls {
			switch d.Kind {
			case binary.DeclType:
				b = encTypeDef(t, append(b, 0x01), d.Type)
			case binary.DeclAlias:
				b = encAlias(append(b, 0x02), d.Alias)
			case binary.DeclImport:
				b = encExtern(encExternName(append(b, 0x03), d.Name), d.Extern)
			case binary.DeclExport:
				b = encExtern(encExternName(append(b, 0x04), d.Name), d.Extern)
			default:
				t.Fatalf("encodeComponent: declaration kind %d is not written", d.Kind)
			}
		}
		return b
	case binary.TypeResource:
		return append(b, 0x3f, 0x7f, 0x00)
	}
	t.Fatalf("encodeComponent: type kind %d is not written", td.Kind)
	return nil
}

// withSection appends a custom section to a component binary.
func withSection(bin []byte, name string, data []byte) []byte {
	out := append([]byte(nil), bin...)
	return appendSection(out, 0, append(encName(nil, name), data...))
}

// ---- the test package ----

// docsWIT is a package with doc comments and gates on every kind of item
// that the package-docs section describes. docsWAT is its binary encoding
// (as wasm-tools writes it, by hand) and docsJSON the package-docs section
// wasm-tools writes for it (version 1).
const docsWIT = `/// The package.
package my:docs@1.2.0;

/// Types and more.
@since(version = 1.0.0)
interface types {
  /// A point.
  record point {
    /// Across.
    x: s32,
    y: s32,
  }
  /// A shape.
  variant shape {
    /// Round.
    circle(f64),
    none,
  }
  enum color {
    /// Like blood.
    red,
    green,
  }
  /// Permissions.
  flags perms {
    read,
    /// May write.
    ///   indented, and with a trailing blank line
    ///
    write,
  }
  /// A blob.
  resource blob {
    /// Makes one.
    constructor(size: u32);
    /// Reads.
    @since(version = 1.1.0)
    @deprecated(version = 1.2.0)
    read: func(n: u32) -> list<u8>;
    /// Merges.
    merge: static func(a: borrow<blob>, b: borrow<blob>) -> blob;
  }
  /// An ID.
  type id = string;

  /// Moves.
  move: func(p: point) -> point;
  /// Not yet.
  @unstable(feature = fancy)
  fancy: func();
}

interface api {
  @since(version = 1.0.0)
  use types.{point};

  /// Pings.
  ///
  /// Twice.
  ping: func(p: point) -> u64;
}

/// The world.
world w {
  /// Types.
  import types;
  /// Logs.
  @since(version = 1.0.0)
  import log: func(msg: string);
  /// Extra.
  import extra: interface {
    /// Inner.
    f: func();
  }
  /// A type of the world.
  type t2 = list<u8>;
  /// Runs.
  export run: func() -> result;
  /// The API.
  @unstable(feature = api)
  export api;
}
`

const docsWAT = `(component
  (type (component
    (type (instance
      (type $r (record (field "x" s32) (field "y" s32)))
      (export "point" (type $point (eq $r)))
      (type $v (variant (case "circle" f64) (case "none")))
      (export "shape" (type (eq $v)))
      (type $e (enum "red" "green"))
      (export "color" (type (eq $e)))
      (type $f (flags "read" "write"))
      (export "perms" (type (eq $f)))
      (export "blob" (type $blob (sub resource)))
      (type $own (own $blob))
      (type $ctor (func (param "size" u32) (result $own)))
      (export "[constructor]blob" (func (type $ctor)))
      (type $borrow (borrow $blob))
      (type $bytes (list u8))
      (type $read (func (param "self" $borrow) (param "n" u32) (result $bytes)))
      (export "[method]blob.read" (func (type $read)))
      (type $merge (func (param "a" $borrow) (param "b" $borrow) (result $own)))
      (export "[static]blob.merge" (func (type $merge)))
      (type $s string)
      (export "id" (type (eq $s)))
      (type $move (func (param "p" $point) (result $point)))
      (export "move" (func (type $move)))
      (type $fancy (func))
      (export "fancy" (func (type $fancy)))))
    (export "my:docs/types@1.2.0" (instance (type 0)))))
  (export "types" (type 0))
  (type (component
    (type (instance
      (type $r (record (field "x" s32) (field "y" s32)))
      (export "point" (type (eq $r)))))
    (import "my:docs/types@1.2.0" (instance (type 0)))
    (alias export 0 "point" (type))
    (type (instance
      (alias outer 1 1 (type))
      (export "point" (type $point (eq 0)))
      (type $ping (func (param "p" $point) (result u64)))
      (export "ping" (func (type $ping)))))
    (export "my:docs/api@1.2.0" (instance (type 2)))))
  (export "api" (type 2))
  (type (component
    (type (component
      (type (instance
        (type $r (record (field "x" s32) (field "y" s32)))
        (export "point" (type (eq $r)))))
      (import "my:docs/types@1.2.0" (instance (type 0)))
      (type $log (func (param "msg" string)))
      (import "log" (func (type $log)))
      (type $extra (instance (type $f (func)) (export "f" (func (type $f)))))
      (import "extra" (instance (type $extra)))
      (type $l (list u8))
      (import "t2" (type (eq $l)))
      (type $res (result))
      (type $run (func (result $res)))
      (export "run" (func (type $run)))
      (alias export 0 "point" (type $p))
      (type $api (instance
        (alias outer 1 $p (type))
        (export "point" (type $point (eq 0)))
        (type $ping (func (param "p" $point) (result u64)))
        (export "ping" (func (type $ping)))))
      (export "my:docs/api@1.2.0" (instance (type $api)))))
    (export "my:docs/w@1.2.0" (component (type 0)))))
  (export "w" (type 4)))`

const docsJSON = `{"docs":"The package.",
 "worlds":{"w":{"docs":"The world.",
   "interfaces":{"extra":{"docs":"Extra.","funcs":{"f":{"docs":"Inner."}}}},
   "types":{"t2":{"docs":"A type of the world."}},
   "funcs":{"log":{"docs":"Logs.","stability":{"stable":{"since":"1.0.0"}}}},
   "func_exports":{"run":{"docs":"Runs."}},
   "interface_export_stability":{"my:docs/api@1.2.0":{"unstable":{"feature":"api"}}},
   "interface_import_docs":{"my:docs/types@1.2.0":"Types."},
   "interface_export_docs":{"my:docs/api@1.2.0":"The API."}}},
 "interfaces":{
   "types":{"docs":"Types and more.","stability":{"stable":{"since":"1.0.0"}},
     "funcs":{"[constructor]blob":{"docs":"Makes one."},
       "[method]blob.read":{"docs":"Reads.","stability":{"stable":{"since":"1.1.0","deprecated":"1.2.0"}}},
       "[static]blob.merge":{"docs":"Merges."},
       "move":{"docs":"Moves."},
       "fancy":{"docs":"Not yet.","stability":{"unstable":{"feature":"fancy"}}}},
     "types":{"point":{"docs":"A point.","items":{"x":"Across."}},
       "shape":{"docs":"A shape.","items":{"circle":"Round."}},
       "color":{"items":{"red":"Like blood."}},
       "perms":{"docs":"Permissions.","items":{"write":"May write.\n  indented, and with a trailing blank line\n"}},
       "blob":{"docs":"A blob."},
       "id":{"docs":"An ID."}}},
   "api":{"funcs":{"ping":{"docs":"Pings.\n\nTwice."}},
     "types":{"point":{"stability":{"stable":{"since":"1.0.0"}}}}}}}`

// docsBinary is docsWAT in binary form, without a package-docs section.
func docsBinary(t testing.TB) []byte {
	t.Helper()
	c, err := wat.Parse([]byte(docsWAT))
	if err != nil {
		t.Fatalf("docsWAT: %v", err)
	}
	return encodeComponent(t, c)
}

// TestEncodeComponentHelper: the test writer's output reads back as the
// syntax tree it was written from.
func TestEncodeComponentHelper(t *testing.T) {
	c, err := wat.Parse([]byte(docsWAT))
	if err != nil {
		t.Fatal(err)
	}
	back, err := binary.Parse(encodeComponent(t, c))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(syntax(back), syntax(c)) {
		t.Fatal("the binary written by encodeComponent reads back differently")
	}
}

// TestPackageDocsRoundTrip: WIT with docs and gates on every kind of item,
// encoded (the package by hand, its package-docs section as wasm-tools
// writes it) and decoded, prints as the same WIT as its source, with and
// without the features its @unstable items name.
func TestPackageDocsRoundTrip(t *testing.T) {
	bin := withSection(docsBinary(t), "package-docs", append([]byte{1}, docsJSON...))
	for _, opts := range []Options{{AllFeatures: true}, {}, {Features: []string{"fancy"}}} {
		want, err := ParseSource("docs.wit", docsWIT, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeBinary("docs.wasm", bin, opts)
		if err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		if g, w := Print(got), Print(want); g != w {
			t.Errorf("%+v: decoded package prints differently\n--- got\n%s\n--- want\n%s", opts, g, w)
		}
	}

	got, err := DecodeBinary("docs.wasm", bin, Options{AllFeatures: true})
	if err != nil {
		t.Fatal(err)
	}
	p := got.Root
	types := p.Interface("types")
	color := types.Type("color").Type
	perms := types.Type("perms").Type
	blob := types.Type("blob").Type
	checks := []struct{ what, got, want string }{
		{"package", p.Docs, "The package."},
		{"interface", types.Docs, "Types and more."},
		{"record", types.Type("point").Docs, "A point."},
		{"field", types.Type("point").Type.Fields[0].Docs, "Across."},
		{"variant case", types.Type("shape").Type.Cases[0].Docs, "Round."},
		{"enum case", strings.Join(color.NameDocs, "|"), "Like blood.|"},
		{"flag", strings.Join(perms.NameDocs, "|"), "|May write.\n  indented, and with a trailing blank line\n"},
		{"resource", blob.Resource.Docs, "A blob."},
		{"method", blob.Resource.Methods[1].Docs, "Reads."},
		{"function", types.Func("move").Docs, "Moves."},
		{"multi-line", p.Interface("api").Func("ping").Docs, "Pings.\n\nTwice."},
		{"world", p.World("w").Docs, "The world."},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s docs: %q, want %q", c.what, c.got, c.want)
		}
	}
	if g := types.Gate; g == nil || g.Since != "1.0.0" {
		t.Errorf("interface gate: %+v", g)
	}
	if g := blob.Resource.Methods[1].Gate; g == nil || g.Since != "1.1.0" || g.Deprecated != "1.2.0" {
		t.Errorf("method gate: %+v", g)
	}
	w := p.World("w")
	if it := w.Exports[len(w.Exports)-1]; it.Name != "my:docs/api@1.2.0" || it.Docs != "The API." || it.Gate == nil || it.Gate.Unstable != "api" {
		t.Errorf("world export by path: %+v", it)
	}

	// Without the features, the @unstable items are left out.
	plain, err := DecodeBinary("docs.wasm", bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Root.Interface("types").Func("fancy") != nil {
		t.Error("@unstable(feature = fancy) function kept without the feature")
	}
	for _, it := range plain.Root.World("w").Exports {
		if it.Interface != nil {
			t.Errorf("@unstable(feature = api) export kept without the feature: %s", it.Name)
		}
	}

	// The same section in a package in deps/: the docs come back there too.
	dir := t.TempDir()
	if err := os.MkdirAll(dir+"/deps", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/deps/docs.wasm", bin, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/user.wit", []byte("package me:user;\n\nworld u {\n  import my:docs/api@1.2.0;\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := ParseDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Package("my:docs@1.2.0").Interface("api").Func("ping").Docs; d != "Pings.\n\nTwice." {
		t.Errorf("docs of a deps/ package: %q", d)
	}
}

// TestPackageDocsV0: the original format (version 0): functions' docs as
// plain strings (or null), no stability.
func TestPackageDocsV0(t *testing.T) {
	v0 := `{"docs":"P.","interfaces":{"types":{"docs":"I.","funcs":{"move":"Moves.","fancy":null,"[static]blob.merge":"Merges."},
		"types":{"point":{"docs":"A point.","items":{"y":"Down."}}}}},
		"worlds":{"w":{"funcs":{"log":"Logs.","run":"Runs."},"interfaces":{"extra":{"docs":"Extra."}}}}}`
	got, err := DecodeBinary("v0.wasm", withSection(docsBinary(t), "package-docs", append([]byte{0}, v0...)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	text := Print(got)
	for _, want := range []string{
		"/// P.\npackage my:docs@1.2.0;",
		"/// I.\ninterface types {",
		"  /// A point.\n  record point {\n    x: s32,\n    /// Down.\n    y: s32,",
		"    /// Merges.\n    merge: static func",
		"  /// Moves.\n  move: func",
		"  /// Logs.\n  import log: func",
		"  /// Extra.\n  import extra: interface {",
		"  /// Runs.\n  export run: func",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("printed package lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "@since") || strings.Contains(text, "@unstable") {
		t.Errorf("gates from nowhere:\n%s", text)
	}
}

// TestPackageDocsIgnored: a section of a version this decoder does not
// read, and members it does not know, are ignored; an empty object is no
// docs.
func TestPackageDocsIgnored(t *testing.T) {
	plain, err := DecodeBinary("plain.wasm", docsBinary(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{
		append([]byte{2}, `{"docs": 5, "anything": true}`...),
		[]byte("\xff"),
		[]byte("\x01{}"),
		[]byte("\x00{}"),
		append([]byte{1}, `{"future-member": {"x": [1, 2]}, "interfaces": {"types": {"new": 1}}}`...),
	} {
		got, err := DecodeBinary("x.wasm", withSection(docsBinary(t), "package-docs", data), Options{})
		if err != nil {
			t.Errorf("%q: %v", data, err)
			continue
		}
		if g, w := Print(got), Print(plain); g != w {
			t.Errorf("%q: docs from an ignored section\n%s", data, g)
		}
	}
}

// TestPackageDocsErrors: a malformed section is refused with an error
// naming the section and what is wrong.
func TestPackageDocsErrors(t *testing.T) {
	bin := docsBinary(t)
	v1 := func(s string) []byte { return append([]byte{1}, s...) }
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "package-docs section: empty"},
		{"bad JSON", v1(`{"docs":`), "package-docs section: version 1: unexpected EOF"},
		{"trailing data", v1(`{} {}`), "data after the JSON document"},
		{"not an object", v1(`[]`), "cannot unmarshal array"},
		{"docs a number", v1(`{"docs": 5}`), "cannot unmarshal number"},
		{"func a number", v1(`{"interfaces":{"types":{"funcs":{"move":5}}}}`), "a function's entry is a number"},
		{"item an object", v1(`{"interfaces":{"types":{"types":{"point":{"items":{"x":{}}}}}}}`), "docs are an object: want a string"},
		{"no interface", v1(`{"interfaces":{"nope":{}}}`), `package-docs section: the package has no interface "nope"`},
		{"no world", v1(`{"worlds":{"nope":{}}}`), `the package has no world "nope"`},
		{"no function", v1(`{"interfaces":{"types":{"funcs":{"nope":"x"}}}}`), `interface "types" has no function "nope"`},
		{"no type", v1(`{"interfaces":{"api":{"types":{"nope":{}}}}}`), `interface "api" has no type "nope"`},
		{"no field", v1(`{"interfaces":{"types":{"types":{"point":{"items":{"z":"x"}}}}}}`), `type "point" of interface "types" has no field, case or flag "z"`},
		{"items of an alias", v1(`{"interfaces":{"types":{"types":{"id":{"items":{"z":"x"}}}}}}`), "items (fields or cases) for a type that is not a record"},
		{"items of a use", v1(`{"interfaces":{"api":{"types":{"point":{"items":{"x":"x"}}}}}}`), "items (fields or cases) for a type that names another type"},
		{"no world function", v1(`{"worlds":{"w":{"func_exports":{"log":{}}}}}`), `world "w" exports no function "log"`},
		{"no world import", v1(`{"worlds":{"w":{"interface_import_docs":{"my:docs/api@1.2.0":"x"}}}}`), `world "w" imports no interface "my:docs/api@1.2.0"`},
		{"no inline", v1(`{"worlds":{"w":{"interface_exports":{"extra":{}}}}}`), `world "w" exports no inline interface "extra"`},
		{"inline member", v1(`{"worlds":{"w":{"interfaces":{"extra":{"funcs":{"g":"x"}}}}}}`), `interface "extra" of world "w" has no function "g"`},
		{"bad stability", v1(`{"interfaces":{"types":{"stability":"stable"}}}`), `stability "stable": want "unknown"`},
		{"two gates", v1(`{"interfaces":{"types":{"stability":{"stable":{"since":"1.0.0"},"unstable":{"feature":"x"}}}}}`), "an object with one member"},
		{"no since", v1(`{"interfaces":{"types":{"stability":{"stable":{}}}}}`), `"stable" without "since"`},
		{"bad version", v1(`{"interfaces":{"types":{"stability":{"stable":{"since":"1.0"}}}}}`), `"1.0" is not a semantic version`},
		{"bad feature", v1(`{"interfaces":{"types":{"stability":{"unstable":{"feature":"Bad_Name"}}}}}`), `feature "Bad_Name" is not a WIT identifier`},
		{"unreleased", v1(`{"interfaces":{"types":{"stability":{"stable":{"since":"2.0.0"}}}}}`), "package-docs section: @since(version = 2.0.0) is not a released version"},
		{"control character", v1(`{"interfaces":{"types":{"docs":"a\u0007b"}}}`), "package-docs section: docs hold the character U+0007"},
		{"bidi override", v1(`{"docs":"a\u202eb"}`), "U+202E"},
		{"invalid UTF-8", v1("{\"docs\":\"a\xffb\"}"), "invalid UTF-8"},
		{"huge", append(v1(`{"docs":"`), bytes.Repeat([]byte("x"), maxPackageDocs)...), "more than 4 MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeBinary("x.wasm", withSection(bin, "package-docs", c.data), Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	t.Run("two sections", func(t *testing.T) {
		two := withSection(withSection(bin, "package-docs", v1("{}")), "package-docs", v1("{}"))
		if _, err := DecodeBinary("x.wasm", two, Options{}); err == nil || !strings.Contains(err.Error(), "more than one package-docs section") {
			t.Fatalf("got %v", err)
		}
	})
}

// FuzzPackageDocs: any package-docs section on a valid package decodes
// or is refused, never panics, and what decodes is WIT the parser reads.
func FuzzPackageDocs(f *testing.F) {
	bin := docsBinary(f)
	f.Add(append([]byte{1}, docsJSON...))
	f.Add([]byte("\x00{\"interfaces\":{\"types\":{\"funcs\":{\"move\":\"x\"}}}}"))
	f.Add([]byte("\x01{\"worlds\":{\"w\":{\"interface_import_stability\":{\"my:docs/types@1.2.0\":{\"unstable\":{\"feature\":\"f\",\"deprecated\":\"1.0.0\"}}}}}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := decodeBinary(withSection(bin, "package-docs", data))
		if err != nil {
			if !strings.Contains(err.Error(), "package-docs") {
				t.Fatalf("an error not naming the section: %v", err)
			}
			return
		}
		// The docs and gates written into the source never break its
		// syntax; resolving may still refuse it (a kept item in a left-out
		// container, as for any .wit file).
		if _, err := parseFile("fuzz.wasm (decoded)", d.text()); err != nil {
			t.Fatalf("the decoded source does not parse: %v\n%s", err, d.text())
		}
		_, _ = ParseSource("fuzz.wasm (decoded)", d.text(), Options{})
	})
}
