package js

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDecoratorPragmaKeepsTsconfig: the line "// @aios-decorators
// experimental" replaced the provider's tsconfig.json as a whole (esbuild
// was handed a tsconfig of that one option), so every other option of it
// was dropped once the line was added: with "useDefineForClassFields":
// false a class field stopped calling its base class's setter and became
// an own property, without a word. The line now chooses the decorators
// only: the tsconfig.json beside the file or above it (esbuild's nearest)
// keeps its other options, and a signed provider's pinned one too.
func TestDecoratorPragmaKeepsTsconfig(t *testing.T) {
	body := "let seen = '';\n" +
		"function logged(target: any, key: any, desc?: any): any { seen = typeof key; }\n" +
		"class B { set x(v: any) { (globalThis as any).viaSetter = v; } }\n" +
		"class C extends B { x: any = 5; @logged m() { return seen; } }\n" +
		"aios.provider({ id: 'org.test.tsc' });\n" +
		"aios.registerTool({ name: 't', parameters: {} }, () => {\n" +
		"  (globalThis as any).viaSetter = null;\n" +
		"  const c = new C();\n" +
		"  return { own: Object.prototype.hasOwnProperty.call(c, 'x'), setter: (globalThis as any).viaSetter, key: c.m() };\n" +
		"});\n"
	const tsconfig = `{
  // JSONC, as tsc reads it
  "compilerOptions": { "useDefineForClassFields": false, },
}`
	rt := newRuntime(t, Options{})
	for _, c := range []struct{ name, pragma, key string }{
		{"experimental", "// @aios-decorators experimental\n", "string"},
		{"standard", "// @aios-decorators standard\n", "object"},
		{"none", "", "object"},
	} {
		for _, where := range []string{"beside", "above"} {
			top := t.TempDir()
			dir := filepath.Join(top, "prov")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tsdir := dir
			if where == "above" {
				tsdir = top
			}
			if err := os.WriteFile(filepath.Join(tsdir, "tsconfig.json"), []byte(tsconfig), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "index.ts"), []byte(c.pragma+body), 0o644); err != nil {
				t.Fatal(err)
			}
			p := loadPath(t, rt, dir)
			got, err := call(t, p, newFakeEnv(), "t", map[string]any{}, 30*time.Second)
			if err != nil {
				t.Fatalf("%s, tsconfig.json %s: %v", c.name, where, err)
			}
			m, _ := got.(map[string]any)
			if m["own"] != false || m["setter"] != int64(5) || m["key"] != c.key {
				t.Errorf("%s, tsconfig.json %s: %v, want the field set through the setter (useDefineForClassFields: false kept) and the decorator's second argument a %s", c.name, where, got, c.key)
			}
		}
	}

	// A signed provider: its pinned tsconfig.json, comments and all.
	dir := t.TempDir()
	entry := filepath.Join(dir, "index.ts")
	ts := filepath.Join(dir, "tsconfig.json")
	pins := map[string]string{}
	for p, src := range map[string]string{entry: "// @aios-decorators experimental\n" + body, ts: tsconfig} {
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(src))
		pins[p] = hex.EncodeToString(sum[:])
	}
	b, err := bundleFile(entry, pins)
	if err != nil {
		t.Fatalf("signed: %v", err)
	}
	if strings.Contains(b.Code, "__publicField") || !strings.Contains(b.Code, "this.x = 5") || !strings.Contains(b.Code, "__decorateClass") {
		t.Errorf("signed: the bundle does not assign the field (useDefineForClassFields: false) with experimental decorators:\n%s", b.Code)
	}
}

// TestJSONCToJSON: a pinned tsconfig.json is read as tsc reads it, with
// comments, trailing commas and a byte order mark, and what looks like a
// comment inside a string ("paths": {"@/*": …}) is kept; an unterminated
// comment is an error.
func TestJSONCToJSON(t *testing.T) {
	for in, want := range map[string]string{
		"\uFEFF{\"a\": 1, // one\n}":                             `{"a":1}`,
		`{"paths": {"@/*": ["./src/*"]}, /* c */ "b": [1, 2,],}`: `{"b":[1,2],"paths":{"@/*":["./src/*"]}}`,
		`{"s": "a \" // not a comment", "t": "x,}"}`:             `{"s":"a \" // not a comment","t":"x,}"}`,
	} {
		got, err := jsoncToJSON(in)
		var v any
		if err == nil {
			err = json.Unmarshal([]byte(got), &v)
		}
		canon, _ := json.Marshal(v)
		if err != nil || string(canon) != want {
			t.Errorf("jsoncToJSON(%q) = %q (%v), want %s", in, got, err, want)
		}
	}
	if got, err := jsoncToJSON(`{"u": 1 /* unterminated`); err == nil {
		t.Errorf("an unterminated comment: %q, want an error", got)
	}
}
