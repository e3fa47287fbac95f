package wit

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSyntaxErrorsHavePositions(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"missing semicolon", "package a:b;\ninterface i {\n  type x = u32\n}\n", "t.wit:4:1: expected ';', found '}'"},
		{"keyword as name", "package a:b;\ninterface i {\n  type option = u32;\n}\n", "t.wit:3:8: expected an identifier, found keyword `option`"},
		{"bad kebab", "package a:b;\ninterface i {\n  type fooBar = u32;\n}\n", "t.wit:3:8: identifier \"fooBar\" is not kebab-case"},
		{"double dash", "package a:b;\ninterface a--b {}\n", "t.wit:2:11: identifier \"a--b\" is not kebab-case"},
		{"unterminated string", "package a:b;\nworld w {\n  @external-id(\"x\n", "t.wit:3:16: unterminated string literal"},
		{"bad version", "package a:b@1.x;\n", "t.wit:1:13: invalid version"},
		{"empty enum", "package a:b;\ninterface i { enum e {} }\n", "t.wit:2:20: empty enum `e`"},
		{"fixed list zero", "package a:b;\ninterface i { type l = list<u8, 0>; }\n", "invalid fixed-length 0"},
		{"unknown type", "package a:b;\ninterface i {\n  f: func(x: nope);\n}\n", "t.wit:3:14: type `nope` does not exist"},
		{"cycle", "package a:b;\ninterface i {\n  type a = b;\n  type b = a;\n}\n", "depends on itself"},
		{"bidi override", "package a:b;\n// \u202e\n", "invalid character U+202E"},
		{"deprecated alone", "package a:b@1.0.0;\n@deprecated(version = 1.0.0)\ninterface i {}\n", "t.wit:2:1: @deprecated must be paired"},
		{"borrow result", "package a:b;\ninterface i {\n  resource r;\n  f: func() -> borrow<r>;\n}\n", "t.wit:4:3: function `f` returns a type which contains a `borrow<T>`"},
		{"import package", "package a:b;\nworld w {\n  import a:b;\n}\n", "cannot import or export package `a:b`"},
		{"unclosed comment", "package a:b;\n/* x\n", "t.wit:2:1: unterminated block comment"},
		{"map key", "package a:b;\ninterface i { type m = map<f32, u8>; }\n", "invalid map key type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSource("t.wit", tc.src, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want containing %q", err, tc.want)
			}
		})
	}
}

func TestParseModel(t *testing.T) {
	src := `package my:pkg@1.2.3-rc.1+build.5;

/// Types for tools.
interface types {
  /// A size.
  record size { width: u32, height: u32 }
  enum fit { cover, contain }
  flags perms { read, write }
  variant shape { none, circle(f64), poly(list<tuple<f32, f32>>) }
  type bytes = list<u8>;
  type quad = list<u8, 4>;
  resource image {
    constructor(data: bytes);
    size: func() -> size;
    open: static func(path: string) -> result<image, string>;
  }
}

interface api {
  use types.{size, image as img, bytes};
  resize: async func(i: borrow<img>, to: size) -> result<bytes>;
  %type: func() -> option<option<char>>;
}

world tools {
  import api;
  export api;
  export run: func(args: list<string>) -> result<_, string>;
}
`
	res, err := ParseSource("m.wit", src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Root
	if p.Name != (PackageName{"my", "pkg", "1.2.3-rc.1+build.5"}) {
		t.Errorf("name %+v", p.Name)
	}
	ty := p.Interface("types")
	if ty.Docs != "Types for tools." || ty.ID() != "my:pkg/types@1.2.3-rc.1+build.5" {
		t.Errorf("types docs %q id %s", ty.Docs, ty.ID())
	}
	size := ty.Type("size")
	if size.Type.Kind != KindRecord || size.Type.Docs != "A size." || len(size.Type.Fields) != 2 {
		t.Errorf("size = %+v", size.Type)
	}
	if q := ty.Type("quad"); !q.Alias || q.Type.Kind != KindList || q.Type.Len != 4 {
		t.Errorf("quad = %+v", q)
	}
	img := ty.Type("image").Type
	var names []string
	for _, m := range img.Resource.Methods {
		names = append(names, m.Name)
	}
	if !reflect.DeepEqual(names, []string{"[constructor]image", "[method]image.size", "[static]image.open"}) {
		t.Errorf("methods %v", names)
	}
	if m := img.Resource.Methods[1]; m.Params[0].Name != "self" || m.Params[0].Type.Kind != KindBorrow {
		t.Errorf("self param %+v", m.Params)
	}
	api := p.Interface("api")
	if api.Type("size").Type != size.Type || api.Type("img").FromName != "image" {
		t.Error("use did not share the type")
	}
	rz := api.Func("resize")
	if !rz.Async || rz.Params[0].Type.Kind != KindBorrow || rz.Result.Ok != ty.Type("bytes").Type {
		t.Errorf("resize = %+v", rz)
	}
	if api.Func("type") == nil {
		t.Errorf("escaped %%type missing")
	}
	w := p.World("tools")
	var imps []string
	for _, it := range w.Imports {
		imps = append(imps, it.Name)
	}
	if !reflect.DeepEqual(imps, []string{"my:pkg/types@1.2.3-rc.1+build.5", "my:pkg/api@1.2.3-rc.1+build.5"}) || !w.Imports[0].Implicit {
		t.Errorf("imports %v", imps)
	}
	if len(w.Exports) != 2 || w.Exports[1].Func == nil {
		t.Errorf("exports %+v", w.Exports)
	}
}

func TestParseDirWithDeps(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "deps", "io"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.wit"), []byte("package app:main;\nworld w { import wasi:io/streams@0.2.0; include extra; }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.wit"), []byte("world extra { export run: func(); }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "deps", "io", "s.wit"), []byte("package wasi:io@0.2.0;\ninterface error { resource error; }\ninterface streams { use error.{error}; }\n"), 0o644)
	res, err := ParseDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Packages) != 2 || res.Root.Name.String() != "app:main" {
		t.Fatalf("packages %v root %v", len(res.Packages), res.Root.Name)
	}
	w := res.Root.World("w")
	if len(w.Imports) != 2 || w.Imports[0].Name != "wasi:io/error@0.2.0" || len(w.Exports) != 1 {
		t.Errorf("world %+v", w)
	}
}

// genWIT generates a package of about n lines.
func genWIT(n int) string {
	var b strings.Builder
	b.WriteString("package bench:big@1.0.0;\n\ninterface base {\n  record rec-base { a: u32 }\n  enum color-base { red }\n}\n\n")
	lines := 7
	for i := 0; lines < n; i++ {
		fmt.Fprintf(&b, "/// Interface %d.\ninterface i%d {\n", i, i)
		// Each interface takes types from the shared base interface and
		// from its predecessor in groups of ten (like WASI's types
		// interfaces), not one long chain.
		fmt.Fprintf(&b, "  use base.{rec-base, color-base};\n")
		if i%10 != 0 {
			fmt.Fprintf(&b, "  use i%d.{rec%d as prev-rec, color%d as prev-color};\n", i-1, i-1, i-1)
		}
		fmt.Fprintf(&b, "  record rec%d {\n    name: string,\n    width: u32,\n    height: u32,\n    tags: list<string>,\n    opt: option<f64>,\n  }\n", i)
		fmt.Fprintf(&b, "  enum color%d { red, green, blue }\n", i)
		fmt.Fprintf(&b, "  flags perms%d { read, write, exec }\n", i)
		fmt.Fprintf(&b, "  variant shape%d {\n    none,\n    circle(f64),\n    rect(tuple<u32, u32>),\n  }\n", i)
		fmt.Fprintf(&b, "  type blob%d = list<u8>;\n", i)
		fmt.Fprintf(&b, "  resource handle%d {\n    constructor(name: string);\n    read: func(n: u32) -> result<blob%d, string>;\n  }\n", i, i)
		fmt.Fprintf(&b, "  /// Does things.\n  op%d: func(r: rec%d, c: color%d, s: shape%d) -> result<rec%d, string>;\n", i, i, i, i, i)
		fmt.Fprintf(&b, "  list%d: func(h: borrow<handle%d>, p: perms%d) -> list<option<rec%d>>;\n}\n\n", i, i, i, i)
		fmt.Fprintf(&b, "world w%d {\n  import i%d;\n  export i%d;\n  export run%d: func(x: s64) -> string;\n}\n\n", i, i, i, i)
		lines += 33
	}
	return b.String()
}

func TestGenWITResolves(t *testing.T) {
	src := genWIT(5000)
	if n := strings.Count(src, "\n"); n < 5000 {
		t.Fatalf("generated %d lines", n)
	}
	if _, err := ParseSource("big.wit", src, Options{}); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkWITParse parses and resolves a generated 5,000-line package.
func BenchmarkWITParse(b *testing.B) {
	src := genWIT(5000)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseSource("big.wit", src, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestByteOrderMark: a file that starts with a UTF-8 byte order mark (as
// some editors write) parses, and positions after it are unchanged.
func TestByteOrderMark(t *testing.T) {
	if _, err := ParseSource("bom.wit", "\ufeffpackage a:b;\ninterface i {}\n", Options{}); err != nil {
		t.Fatal(err)
	}
	_, err := ParseSource("bom.wit", "\ufeffpackage a:b;\ninterface i { x }\n", Options{})
	if err == nil || !strings.Contains(err.Error(), "bom.wit:2:") {
		t.Fatalf("err = %v, want an error at line 2", err)
	}
	if _, err := ParseSource("mid.wit", "package a:b;\n\ufeffinterface i {}\n", Options{}); err == nil {
		t.Fatal("a byte order mark inside the file was accepted")
	}
}
