package wit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseWat parses text as the .wat file e.wat.
func parseWat(t *testing.T, text string) (*Resolved, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "e.wat")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return Parse(p, Options{})
}

// TestDecodeRefusesLabelsWITCannotRead: a WIT package in its encoding
// whose type, function, world item, field, case, flag or parameter name
// is not a WIT identifier ("", "Ab", "x y") was rendered to WIT text as
// it is and refused by the text parser at a place in text nobody sees:
// `aios-host wit e.wat` said "e.wat (decoded):4:11: expected an
// identifier, found '{'" (what FuzzDecodeText found for an empty type
// name). The name is refused, quoted, with what is wrong with it.
func TestDecodeRefusesLabelsWITCannotRead(t *testing.T) {
	inst := func(body string) string {
		return `(component (type (component (type (instance ` + body + `)) (export "a:a/i" (instance (type 0))))) (export "i" (type 0)))`
	}
	world := func(body string) string {
		return `(component (type (component (type (component ` + body + `)) (export "a:a/w" (component (type 0))))) (export "w" (type 0)))`
	}
	for _, tc := range []struct{ wat, name string }{
		{inst(`(type (record (field "a" u8))) (export "" (type (eq 0)))`), `""`},
		{inst(`(type (record (field "a" u8))) (export "Ab" (type (eq 0)))`), `"Ab"`},
		{inst(`(type (func)) (export "x y" (func (type 0)))`), `"x y"`},
		{inst(`(type (record (field "x y" u8))) (export "r" (type (eq 0)))`), `"x y"`},
		{inst(`(type (variant (case "Ab" u8))) (export "r" (type (eq 0)))`), `"Ab"`},
		{inst(`(type (enum "a" "")) (export "r" (type (eq 0)))`), `""`},
		{inst(`(type (flags "a-")) (export "r" (type (eq 0)))`), `"a-"`},
		{inst(`(type (func (param "x y" u8))) (export "f" (func (type 0)))`), `"x y"`},
		{world(`(type (func)) (import "x y" (func (type 0)))`), `"x y"`},
		{world(`(type (instance)) (import "Ab" (instance (type 0)))`), `"Ab"`},
		{world(`(type (record (field "a" u8))) (import "x y" (type (eq 0)))`), `"x y"`},
	} {
		res, err := parseWat(t, tc.wat)
		if err == nil {
			t.Errorf("%s: accepted:\n%s", tc.wat, Print(res))
			continue
		}
		if strings.Contains(err.Error(), "(decoded)") || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s: %v; want an error naming %s", tc.wat, err, tc.name)
		}
	}
	// Good names, members of a world's resource among them, still decode.
	good := world(`(import "t" (type (sub resource))) (type (own 0)) (type (func (result 1))) (import "[constructor]t" (func (type 2))) (type (record (field "a-b" u8) (field "C" u8))) (import "r" (type (eq 3))) (type (func (param "x" 4))) (import "f" (func (type 5)))`)
	if _, err := parseWat(t, good); err != nil {
		t.Errorf("good names: %v", err)
	}
}
