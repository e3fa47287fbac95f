package wit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

// FuzzParse: the parser and resolver never panic; whatever resolves prints
// to WIT that resolves again, to the same package (printed the same).
func FuzzParse(f *testing.F) {
	f.Add("package a:b;\ninterface i { record r { x: u32 } f: func(a: r) -> result<string, u8>; }\n")
	f.Add("package a:b@1.0.0;\n@since(version = 1.0.0)\nworld w { import x: func(); export y: interface { use i.{t}; } }\ninterface i { type t = list<u8, 4>; }\n")
	f.Add("package a:b;\ninterface i { resource r { constructor(); m: func() -> r; s: static func(); } }\n")
	f.Add("package a:b;\npackage c:d { interface x {} }\nworld w { include c:d/x; }\n")
	f.Add("/* /* */ */ package %a:%b; world %world { import %import: async func(); }")
	if dir, err := findCorpus(); err == nil {
		// Every .wit of the corpus: the files of its package folders and
		// their deps/ too (top-level `use` of other packages, nested
		// packages), not only the single-file inputs.
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".wit") {
				if b, err := os.ReadFile(p); err == nil {
					f.Add(string(b))
				}
			}
			return nil
		})
	}
	f.Fuzz(func(t *testing.T, src string) {
		// A hang detector: an input that takes seconds is a bug worth a crash.
		done := make(chan struct{})
		go func() {
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				panic("HANG on input: " + strconv.Quote(src))
			}
		}()
		defer close(done)
		res, err := ParseSource("fuzz.wit", src, Options{AllFeatures: true})
		if err != nil {
			return
		}
		text := Print(res)
		res2, err := ParseSource("printed.wit", text, Options{AllFeatures: true})
		if err != nil {
			t.Fatalf("printed form does not parse: %v\ninput:\n%s\nprinted:\n%s", err, src, text)
		}
		// ... and is the same package: printed again, the same text.
		if again := Print(res2); again != text {
			t.Fatalf("printed form changes when printed again\ninput:\n%s\nprinted:\n%s\nagain:\n%s", src, text, again)
		}
	})
}

// findCorpus returns shared/corpus/wit-parser-ui inside the repository
// root (a shared/ link in a clone) or beside it or any folder above it
// (../shared, or ../../shared for a worktree at /work/wt/NAME), the nearest
// first, with os.Stat's error and the root's own place when there is none
// ("" and the error when there is no root).
func findCorpus() (string, error) {
	root, err := testutil.FindRepoRoot()
	if err != nil {
		return "", err
	}
	return findCorpusFrom(root)
}

// findCorpusFrom is findCorpus for the repository root root.
func findCorpusFrom(root string) (string, error) {
	first := filepath.Join(root, "shared", "corpus", "wit-parser-ui")
	_, firstErr := os.Stat(first)
	if firstErr == nil {
		return first, nil
	}
	for dir := root; ; {
		parent := filepath.Dir(dir)
		if parent == dir {
			return first, firstErr
		}
		dir = parent
		c := filepath.Join(dir, "shared", "corpus", "wit-parser-ui")
		if _, err := os.Stat(c); err == nil {
			return c, nil
		}
	}
}

// FuzzFromJSON: FromJSON never panics on any type expression and JSON
// input; an accepted value converts back to JSON and is accepted again with
// the same result.
func FuzzFromJSON(f *testing.F) {
	seeds := [][2]string{
		{"u32", "4294967296"},
		{"s8", "-128"},
		{"list<u8>", `"aGVsbG8="`},
		{"list<u8>", `[1, 2, 300]`},
		{"tuple<char, string>", `["é", "x"]`},
		{"option<option<u32>>", `{"some": null}`},
		{"result<u8, string>", `{"err": "bad"}`},
		{"map<string, list<u16>>", `{"a": [1, 2]}`},
		{"map<u32, bool>", `[[1, true], [2, false]]`},
		{"r", `{"x": 1, "y": {"tag": "c", "val": 2.5}}`},
		{"e", `"b"`},
		{"fl", `["read", "exec"]`},
		{"list<u64, 2>", `[18446744073709551615, 0]`},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, texpr, js string) {
		if strings.ContainsAny(texpr, ";{}") {
			return
		}
		src := "package f:z;\ninterface i {\n  enum e { a, b }\n  flags fl { read, write, exec }\n  variant v { c(f64), d }\n  record r { x: u8, y: v, z: option<string> }\n  type t = " + texpr + ";\n}\n"
		res, err := ParseSource("f.wit", src, Options{})
		if err != nil {
			return
		}
		typ := res.Root.Interface("i").Type("t").Type
		var v any
		d := json.NewDecoder(strings.NewReader(js))
		d.UseNumber()
		if d.Decode(&v) != nil {
			return
		}
		_ = JSONSchema(typ)
		val, err := FromJSON(typ, v, "$")
		if err != nil {
			return
		}
		out, err := ToJSON(typ, val)
		if err != nil {
			t.Fatalf("ToJSON of an accepted value failed: %v", err)
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		var v2 any
		d = json.NewDecoder(strings.NewReader(string(b)))
		d.UseNumber()
		if err := d.Decode(&v2); err != nil {
			t.Fatal(err)
		}
		val2, err := FromJSON(typ, v2, "$")
		if err != nil {
			t.Fatalf("re-reading %s: %v", b, err)
		}
		if !reflect.DeepEqual(normBytes(val), normBytes(val2)) {
			t.Fatalf("%s: %#v != %#v", b, val, val2)
		}
	})
}
