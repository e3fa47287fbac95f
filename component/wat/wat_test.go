package wat

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/component/binary"
	"github.com/aios-host/aios-host/internal/testutil"
)

// inlineText uses what `wasm-tools print` does not write but people do:
// $ids, inline value, function and instance types, an outer alias by
// name, string escapes and comments.
const inlineText = `;; a WIT package, written by hand
(component $pkg
  (type $iface (component
    (type $base (instance
      (export "handle" (type (sub resource)))
      (type $code (enum "a" "b"))
      (export "code" (type (eq $code)))))
    (import "other:dep/base@0.1.0" (instance $b (type $base)))
    (alias export $b "code" (type $code))
    (alias export $b "handle" (type $handle))
    (export "my:pkg/types@1.2.0" (instance
      (alias outer $iface $code (type $c))
      (export "err-code" (type $e (eq $c)))
      (alias outer 1 $handle (type $h))
      (export "h" (type $hh (eq $h)))
      (type $point (record (field "x" s32) (field "\u{74}ype" f64)))
      (export "point" (type $p (eq $point)))
      (export "make" (func (param "p" $p) (param "tags" (list (tuple string (option $p)))) (result (result (own $hh) (error $e)))))
      (export "pipe" (func async (param "s" (stream u8)) (result (future))))
      (; a block (; nested ;) comment ;)
      (export "check" (func (result (result))))))))
  (export "types" (type $iface))
  (@producers (processed-by "hand" "1"))
)`

// TestParseAgainstWasmTools: the binary wasm-tools (through jco) assembles
// from the same text has the same syntax tree. (The printed forms of
// every WIT corpus world are compared in package wit, TestDecodeOracle.)
func TestParseAgainstWasmTools(t *testing.T) {
	root := testutil.RepoRoot(t)
	jco := filepath.Join(root, "samples", "components", "node_modules", ".bin", "jco")
	if _, err := os.Stat(jco); err != nil {
		t.Fatalf("jco is needed: run `make samples`: %v", err)
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.wat"), filepath.Join(dir, "out.wasm")
	if err := os.WriteFile(in, []byte(inlineText), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if msg, err := exec.CommandContext(ctx, jco, "parse", in, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("jco parse: %v\n%s", err, msg)
	}
	bin, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := binary.Parse(bin)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse([]byte(inlineText))
	if err != nil {
		t.Fatal(err)
	}
	if g, w := strip(got), strip(want); !reflect.DeepEqual(g, w) {
		t.Errorf("syntax trees differ\n got: %s\nwant: %s", dump(g), dump(w))
	}
}

func strip(c *binary.Component) []binary.Def {
	var out []binary.Def
	for _, d := range c.Defs {
		if d.Kind != binary.DefCustom {
			d.Where = ""
			out = append(out, d)
		}
	}
	return out
}

// dump shows defs for a failure message (JSON follows the pointers).
func dump(defs []binary.Def) string {
	b, _ := json.MarshalIndent(defs, "", " ")
	return string(b)
}

// TestParseErrors: bad text is refused with its line and column.
func TestParseErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"", "1:1: want '('"},
		{"(component", "1:1: unclosed '('"},
		{"(module)", "want (component ...)"},
		{"(component) x", "1:13: unexpected text after the component"},
		{"(component\n  (core module))", "2:3: core definitions"},
		{"(component (canon lift))", "(canon ...) definitions are not read"},
		{"(component (type (record (field \"a\" $nope))))", "1:37: unknown type $nope"},
		{"(component (type (list 3)))", "type index 3 is out of range (0 defined)"},
		{"(component (type $a u8) (type $a u8))", "type $a is defined twice"},
		{"(component (type (record (field \"a\\q\" u8))))", `bad escape \q`},
		{"(component (type (record (field \"a", "unterminated string"},
		{"(component (; open", "unterminated block comment"},
		{"(component (type (instance (alias outer 5 0 (type)))))", "outer count 5 goes past the outermost component"},
		{"(component (type (instance (import \"x\" (func)))))", "an instance type has no imports"},
		{"(component (type (func (result u8) (param \"a\" u8))))", "want one trailing (result type)"},
		{"(component (type (resource (rep i32) (dtor 0))))", "resource types with (dtor ...) are not read"},
		{"(component (export \"x\" (value 0)))", "value index 0 is out of range"},
		{"(component (type (variant (case \"a\" u8 (refines 0)))))", "refinements are not supported"},
		{"(component " + strings.Repeat("(", 300), "nested deeper than"},
		{"(component \xff)", "not valid UTF-8"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error containing %q", c.src, err, c.want)
		}
	}
}

// FuzzParse: the reader never panics and never hangs on any text; an
// error is an *Error at a place of the text; white space and a comment
// after the component change nothing.
func FuzzParse(f *testing.F) {
	f.Add(inlineText)
	f.Add(`(component (type (component (type (instance)) (export "e:e/e" (instance (type 0))))) (export "e" (type 0)))`)
	f.Add(`(component (import "f" (func)) (export "g" (func 0)) (alias outer 0 0 (type)))`)
	f.Fuzz(func(t *testing.T, src string) {
		c, err := Parse([]byte(src))
		if err == nil && c == nil {
			t.Fatal("nil component without an error")
		}
		if err != nil {
			var we *Error
			if !errors.As(err, &we) {
				t.Fatalf("%q: error %v (%T) gives no place", src, err, err)
			}
			if lines := strings.Count(src, "\n") + 1; we.Line < 1 || we.Line > lines || we.Col < 1 {
				t.Fatalf("%q (%d lines): error at %d:%d, outside the text: %v", src, lines, we.Line, we.Col, err)
			}
		}
		c2, err2 := Parse([]byte(src + "\n  ;; trailing comment\n"))
		if (err == nil) != (err2 == nil) || !reflect.DeepEqual(c, c2) {
			t.Fatalf("%q: a trailing comment changes the result: %v / %v", src, err, err2)
		}
	})
}
