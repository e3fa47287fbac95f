package wit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/component/binary"
	"github.com/aios-host/aios-host/component/wat"
	"github.com/aios-host/aios-host/internal/testutil"
)

// oracleJob is one world the wasm-tools oracle encodes.
type oracleJob struct {
	Wit      string   `json:"wit"`
	World    string   `json:"world"`
	Features []string `json:"features"`
	Out      string   `json:"out"`

	want *World
}

// runWITOracle encodes each job's world with wasm-tools (through jco, in
// samples/components/oracle/witembed.mjs) and returns the jobs it encoded.
func runWITOracle(t *testing.T, jobs []*oracleJob) []*oracleJob {
	t.Helper()
	root := testutil.RepoRoot(t)
	script := filepath.Join(root, "samples", "components", "oracle", "witembed.mjs")
	if _, err := os.Stat(filepath.Join(root, "samples", "components", "node_modules", "@bytecodealliance", "jco")); err != nil {
		t.Fatalf("jco is needed for the wasm-tools oracle: run `make samples` (samples/components/build.sh installs it): %v", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed for the wasm-tools oracle (scripts/deps.sh installs it): %v", err)
	}
	data, _ := json.Marshal(jobs)
	jf := filepath.Join(t.TempDir(), "jobs.json")
	if err := os.WriteFile(jf, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, jf)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle: %v\n%s", err, stderr.String())
	}
	byOut := map[string]*oracleJob{}
	for _, j := range jobs {
		byOut[j.Out] = j
	}
	var done []*oracleJob
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		verdict, rest, _ := strings.Cut(sc.Text(), " ")
		path, msg, _ := strings.Cut(rest, " ")
		switch verdict {
		case "OK":
			done = append(done, byOut[path])
		case "ERR":
			t.Logf("wasm-tools refused %s: %s", path, msg)
		}
	}
	return done
}

// TestDecodeOracle: every world of the WIT corpus (root packages) is
// encoded by wasm-tools as a component-type section; decoding it gives a
// world with the same imports and exports, and interfaces with the same
// types and functions, as parsing the WIT text. The text form of each
// encoding (`wasm-tools print`) read by component/wat gives the same
// syntax tree as the binary.
func TestDecodeOracle(t *testing.T) {
	dir := corpusDir(t)
	tmp := t.TempDir()
	var jobs []*oracleJob
	for _, p := range corpusInputs(t, dir) {
		res, err := Parse(p, corpusOpts)
		if err != nil {
			continue
		}
		for _, w := range res.Root.Worlds {
			jobs = append(jobs, &oracleJob{
				Wit: p, World: w.ID(), Features: corpusOpts.Features,
				Out:  filepath.Join(tmp, fmt.Sprintf("%d-%s", len(jobs), w.Name)),
				want: w,
			})
		}
	}
	done := runWITOracle(t, jobs)
	// wasm-tools refuses a few corpus worlds (features it gates
	// differently); most must go through, or the test proves nothing.
	if len(done) < len(jobs)*3/4 || len(done) < 50 {
		t.Fatalf("the oracle encoded %d of %d worlds", len(done), len(jobs))
	}
	for _, j := range done {
		name := filepath.Base(j.Wit) + " " + j.World
		bin, err := os.ReadFile(j.Out + ".wasm")
		if err != nil {
			t.Fatal(err)
		}
		res, err := DecodeBinary(name, bin, corpusOpts)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got := res.Root.World(j.want.Name)
		if got == nil {
			t.Errorf("%s: decoded package %s has no world %s", name, res.Root.Name, j.want.Name)
			continue
		}
		if res.Root.Name != j.want.Package.Name {
			t.Errorf("%s: decoded package %s, want %s", name, res.Root.Name, j.want.Package.Name)
		}
		if g, w := worldShape(got), worldShape(j.want); g != w {
			t.Errorf("%s: decoded world differs\n got: %s\nwant: %s", name, g, w)
		}

		text, err := os.ReadFile(j.Out + ".wat")
		if err != nil {
			t.Fatal(err)
		}
		fromText, err := wat.Parse(text)
		if err != nil {
			t.Errorf("%s: component/wat: %v", name, err)
			continue
		}
		fromBin, err := binary.Parse(bin)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(syntax(fromText), syntax(fromBin)) {
			t.Errorf("%s: component/wat reads the printed text differently from the binary", name)
		}
	}
	t.Logf("decoded %d worlds encoded by wasm-tools (%d refused by wasm-tools)", len(done), len(jobs)-len(done))
}

// syntax drops what only one form has: custom sections (the text's
// annotations) and section positions.
func syntax(c *binary.Component) []binary.Def {
	var out []binary.Def
	for _, d := range c.Defs {
		if d.Kind == binary.DefCustom {
			continue
		}
		d.Where = ""
		out = append(out, d)
	}
	return out
}

// worldShape summarises a world: every import and export by name with,
// for interfaces, their type and function names (resource members
// included), and for functions their parameters.
func worldShape(w *World) string {
	item := func(it *WorldItem) string {
		switch {
		case it.Interface != nil:
			return it.Name + "=" + ifaceShape(it.Interface)
		case it.Func != nil:
			return it.Name + "=" + funcShape(it.Func)
		case it.Type != nil:
			return it.Name + "=type"
		}
		return it.Name + "=?"
	}
	var imps, exps []string
	for _, it := range w.Imports {
		imps = append(imps, item(it))
	}
	for _, it := range w.Exports {
		exps = append(exps, item(it))
	}
	sort.Strings(imps)
	sort.Strings(exps)
	return "imports[" + strings.Join(imps, "; ") + "] exports[" + strings.Join(exps, "; ") + "]"
}

func ifaceShape(i *Interface) string {
	var parts []string
	for _, td := range i.Types {
		s := "t:" + td.Name
		if r := td.Type.Resource; r != nil && td.From == nil && !td.Alias && td.Type.Kind == KindOwn {
			for _, m := range r.Methods {
				s += "," + funcShape(m)
			}
		}
		parts = append(parts, s)
	}
	for _, f := range i.Funcs {
		parts = append(parts, "f:"+funcShape(f))
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, " ") + "}"
}

func funcShape(f *Func) string {
	var ps []string
	for _, p := range f.Params {
		ps = append(ps, p.Name)
	}
	s := f.Name + "(" + strings.Join(ps, ",") + ")"
	if f.Result != nil {
		s += "->" + f.Result.Kind.String()
	}
	if f.Async {
		s = "async " + s
	}
	return s
}

// TestDecodeRoundTrip: a package using every kind of type, other
// interfaces of its package and of another package, resources with every
// kind of member, and a world with inline interfaces, functions and types,
// decoded from wasm-tools' encoding, prints as the same WIT as the source.
// (The encoding does not keep aliases of primitive types apart from the
// primitive: `type id = string` is kept, but a `tuple<id>` elsewhere comes
// back as `tuple<string>`, in wasm-tools' decoder too; so the source
// writes string. Nor does it keep which imports a world lists and which
// it has because its other items need them: the source lists them all, in
// the encoding's order.)
func TestDecodeRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := `package my:pkg@1.2.0;

interface types {
  use other:dep/base@0.1.0.{handle, code as err-code};

  record point {
    x: s32,
    %type: f64,
  }
  resource blob {
    constructor(size: u32);
    read: func(n: u32) -> list<u8>;
    merge: static func(a: borrow<blob>, b: borrow<blob>) -> blob;
  }
  variant shape {
    circle(f64),
    square(point),
    none,
  }
  enum color {
    red,
    green,
  }
  flags perms {
    read,
    write,
  }
  type id = string;
  type pair = tuple<string, option<list<point, 3>>>;
  type h = handle;
  type outcome = result<_, err-code>;
}

interface api {
  use types.{point, blob, shape as sh, outcome};

  move: func(p: point, by: tuple<s32, s32>) -> result<point, string>;
  make: func() -> blob;
  classify: func(s: sh) -> option<list<sh>>;
  check: func() -> outcome;
  wait: async func(c: char) -> future<u64>;
  pipe: func(s: stream<u8>) -> stream;
}

world w {
  import other:dep/base@0.1.0;
  import types;
  import api;
  import extra: interface {
    use types.{point};

    ping: func(p: point) -> u64;
  }
  import log: func(msg: string);
  use types.{color};
  type t2 = list<color>;
  export run: func(args: list<string>, c: t2) -> result;
  export types;
}
`
	deps := `package other:dep@0.1.0;

interface base {
  resource handle;
  enum code {
    a,
    b,
  }
}
`
	if err := os.WriteFile(filepath.Join(dir, "pkg.wit"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "deps"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "deps", "dep.wit"), []byte(deps), 0o600); err != nil {
		t.Fatal(err)
	}
	want, err := ParseDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	done := runWITOracle(t, []*oracleJob{{Wit: dir, World: "my:pkg/w@1.2.0", Out: filepath.Join(dir, "w")}})
	if len(done) != 1 {
		t.Fatal("wasm-tools did not encode the world")
	}
	bin, err := os.ReadFile(filepath.Join(dir, "w.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeBinary("w.wasm", bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := PrintPackage(got.Root), PrintPackage(want.Root); g != w {
		t.Errorf("decoded package prints differently\n--- got\n%s\n--- want\n%s", g, w)
	}
	dep := got.Package("other:dep@0.1.0")
	if dep == nil || dep.Interface("base") == nil || dep.Interface("base").Type("handle") == nil || dep.Interface("base").Type("code") == nil {
		t.Errorf("the stub of other:dep is missing or incomplete:\n%s", Print(got))
	}

	// As a dependency: a .wasm in deps/ of another package, with the real
	// other:dep beside it (the stub is not used), and a .wat (its text form).
	user := t.TempDir()
	if err := os.MkdirAll(filepath.Join(user, "deps"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "deps", "pkg.wasm"), bin, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "deps", "dep.wit"), []byte(deps+"\ninterface more {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "user.wit"), []byte("package me:user;\n\nworld u {\n  import my:pkg/api@1.2.0;\n  import other:dep/more@0.1.0;\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := ParseDir(user, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if api := res.Package("my:pkg@1.2.0").Interface("api"); api == nil || api.Func("wait") == nil {
		t.Fatalf("my:pkg/api from deps/pkg.wasm: %v", api)
	}
	if res.Package("other:dep@0.1.0").Interface("more") == nil {
		t.Error("the stub of other:dep replaced the real package in deps/")
	}
	text, err := os.ReadFile(filepath.Join(dir, "w.wat"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(user, "deps", "pkg.wasm"), filepath.Join(user, "deps", "pkg.wat")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "deps", "pkg.wat"), text, 0o600); err != nil {
		t.Fatal(err)
	}
	res2, err := ParseDir(user, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g, w := Print(res2), Print(res); g != w {
		t.Errorf("deps/pkg.wat resolves differently from deps/pkg.wasm\n--- wat\n%s\n--- wasm\n%s", g, w)
	}
}

// TestDecodeErrors: inputs that are not WIT packages get an error naming
// what is wrong.
func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name, wat string
		bin       []byte
		want      string
	}{
		{name: "core module", bin: []byte("\x00asm\x01\x00\x00\x00"), want: "not a WIT package in binary form"},
		{name: "truncated", bin: []byte("\x00asm\x0d\x00\x01\x00\x07\x10\x01"), want: "section"},
		{name: "empty component", wat: `(component)`, want: "no exported component type"},
		{name: "v1", wat: `(component (type (component (export "a:b/i" (instance)))) (export "a:b/wit" (type 0)))`, want: "v1 WIT package encoding"},
		{name: "func export", wat: `(component (import "f" (func)) (export "g" (func 0)))`, want: `a component, not a WIT package: it has a definition of kind "import"`},
		{name: "no export", wat: `(component (type (component (type (instance)))) (export "i" (type 0)))`, want: "exports neither an interface nor a world"},
		{name: "bad name", wat: `(component (type (component (type (instance)) (export "i" (instance (type 0))))) (export "i" (type 0)))`, want: "not an interface or world name"},
		{name: "label mismatch", wat: `(component (type (component (type (instance)) (export "a:b/i" (instance (type 0))))) (export "j" (type 0)))`, want: `under the name "j"`},
		{name: "two packages", wat: `(component
			(type (component (type (instance)) (export "a:b/i" (instance (type 0))))) (export "i" (type 0))
			(type (component (type (instance)) (export "c:d/j" (instance (type 0))))) (export "j" (type 2)))`, want: "belongs to package c:d"},
		{name: "unnamed record", wat: `(component (type (component (type (instance
			(type (record (field "a" u8))) (type (func (param "r" 0))) (export "f" (func (type 1)))))
			(export "a:b/i" (instance (type 0))))) (export "i" (type 0)))`, want: "unnamed record"},
		{name: "handle of non-resource", wat: `(component (type (component (type (instance
			(type u8) (export "t" (type (eq 0))) (type (own 1)) (type (func (result 2))) (export "f" (func (type 3)))))
			(export "a:b/i" (instance (type 0))))) (export "i" (type 0)))`, want: "not a resource"},
		{name: "orphan member", wat: `(component (type (component (type (instance
			(type (func)) (export "[static]r.f" (func (type 0)))))
			(export "a:b/i" (instance (type 0))))) (export "i" (type 0)))`, want: `belongs to resource "r"`},
		{name: "unknown alias", wat: `(component (type (component (type (instance)) (import "a:b/x" (instance (type 0)))
			(alias export 0 "t" (type)) (type (instance)) (export "a:b/i" (instance (type 2))))) (export "i" (type 0)))`, want: `exports no such type`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.wat != "" {
				var comp *binary.Component
				comp, err = wat.Parse([]byte(c.wat))
				if err != nil {
					t.Fatalf("test input: %v", err)
				}
				_, err = decodeComponent(comp)
			} else {
				_, err = decodeBinary(c.bin)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	// A component (not a package) is refused as such.
	root := testutil.RepoRoot(t)
	hello, err := os.ReadFile(filepath.Join(root, "build", "components", "hello.wasm"))
	if err != nil {
		t.Fatalf("run `make samples`: %v", err)
	}
	if _, err := DecodeBinary("hello.wasm", hello, Options{}); !errors.Is(err, ErrNotPackage) {
		t.Errorf("hello.wasm: %v", err)
	}
}

// FuzzDecode: the decoder never panics on any binary, and what it decodes
// is WIT the parser reads without panicking.
func FuzzDecode(f *testing.F) {
	if c, err := findCorpus(); err == nil {
		if b, err := os.ReadFile(filepath.Join(c, "kinds-of-deps", "deps", "e.wasm")); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\x00asm\x0d\x00\x01\x00"))
	f.Add(withSection(docsBinary(f), "package-docs", append([]byte{1}, docsJSON...)))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := decodeBinary(b)
		if err != nil {
			return
		}
		if _, err := ParseSource("fuzz.wasm (decoded)", d.text(), Options{}); err != nil {
			t.Fatalf("decoded text does not parse: %v\n%s", err, d.text())
		}
	})
}

// FuzzDecodeText: the same through the text form, which reaches the
// decoder's structure checks with fewer mutations.
func FuzzDecodeText(f *testing.F) {
	for _, w := range []string{
		`(component (type (component (type (instance (type (record (field "a" u8))) (export "r" (type (eq 0))) (export "s" (type (sub resource))) (type (own 2)) (type (func (param "x" 1) (result 3))) (export "f" (func (type 4))) (export "[constructor]s" (func (type 4))))) (export "a:b/i" (instance (type 0))))) (export "i" (type 0)))`,
		`(component (type (component (type (component (type (instance (type (func (result u64))) (export "p" (func (type 0))))) (import "x" (instance (type 0))) (type (list string)) (import "t" (type (eq 2))))) (export "a:b/w" (component (type 0))))) (export "w" (type 0)))`,
		`(component (type (component (type (instance (export "t" (type (sub resource))))) (import "a:c/x" (instance (type 0))) (alias export 0 "t" (type)) (type (instance (alias outer 1 1 (type)) (export "u" (type (eq 0))) (type (borrow 1)) (type (func (param "self" 2))) (export "[method]u.m" (func (type 3))))) (export "a:b/i" (instance (type 2))))) (export "i" (type 0)))`,
	} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := wat.Parse([]byte(text))
		if err != nil {
			return
		}
		d, err := decodeComponent(c)
		if err != nil {
			return
		}
		if _, err := ParseSource("fuzz.wat (decoded)", d.text(), Options{}); err != nil {
			t.Fatalf("decoded text does not parse: %v\n%s", err, d.text())
		}
	})
}
