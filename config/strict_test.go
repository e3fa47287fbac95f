package config

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// parseErr parses src and checks that it fails with every one of wants
// (substrings of the error).
func parseErr(t *testing.T, src string, wants ...string) {
	t.Helper()
	_, err := Parse([]byte(src), "c.yaml")
	if err == nil {
		t.Fatalf("Parse accepted %q", src)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Parse(%q): error\n%v\ndoes not contain %q", src, err, w)
		}
	}
}

// Aliases are checked against the schema of the place they are used.
func TestAliasesCheckedWhereUsed(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string
	}{
		{"limits aliased as audit", "limits: &a\n  max_call_depth: 3\naudit: *a\n",
			[]string{`c.yaml:2: audit.max_call_depth: unknown key "max_call_depth"`, "(through the alias *a at line 3)"}},
		{"anchor in a section", "runtimes:\n  js: &a\n    max_depth: 3\nlimits: *a\n",
			[]string{`c.yaml:3: limits.max_depth: unknown key "max_depth"`}},
		{"bad value through an alias has a line", "runtimes:\n  js: &a\n    max_call_depth: 300\nlimits: *a\n",
			[]string{"c.yaml:3: limits.max_call_depth: 300 is more than 64"}},
		{"type error through an alias has a path", "runtimes:\n  js: &a\n    max_call_depth: deep\nlimits: *a\n",
			[]string{"c.yaml:3: limits.max_call_depth: cannot unmarshal !!str `deep`"}},
		{"fraction through an alias", "server: &a {max_call_depth: 2.5}\nlimits: *a\n",
			[]string{"c.yaml:1: limits.max_call_depth: want an integer, got 2.5"}},
		{"second use of an anchor", "agents:\n  a: &x {grants: [], rate: {per_second: 0}}\n  b: *x\n",
			[]string{"c.yaml:2: agents.a.rate.per_second: must be positive", "c.yaml:3: agents.b.rate.per_second: must be positive"}},
		{"anchor containing itself", "agents: &a {x: *a}\n",
			[]string{`c.yaml:1: agents.x.x: unknown key "x"`}},
		{"merge key", "limits: {<<: {max_depth: 3}}\n",
			[]string{`c.yaml:1: limits.max_depth: unknown key "max_depth"`}},
		{"merged alias in the wrong place", "limits: &a {max_call_depth: 3}\nagents: {x: {<<: *a}}\n",
			[]string{`c.yaml:1: agents.x.max_call_depth: unknown key "max_call_depth"`, "through the alias *a at line 2"}},
		{"merged list", "limits: {<<: [{max_call_depth: 3}, {bad: 1}]}\n",
			[]string{`c.yaml:1: limits.bad: unknown key "bad"`}},
		{"merge into a map", "agents:\n  <<: {bob: {grant: []}}\n",
			[]string{`c.yaml:2: agents.bob.grant: unknown key "grant"`}},
		{"alias as a key", "data: &k bogus\nlimits: {*k : 3}\n",
			[]string{`c.yaml:2: limits.bogus: unknown key "bogus"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { parseErr(t, c.yaml, c.want...) })
	}

	// Aliases and merges that fit where they are used still work.
	c, err := Parse([]byte("agents:\n  a: &g {grants: [Inference], rate: {per_second: 2}}\n  b: *g\n  c: {<<: *g, max_permission: low}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if g := c.Agents["b"].Grants; len(g) != 1 || g[0] != "Inference" || c.Agents["c"].MaxPermission != "low" || c.Agents["c"].Rate.PerSecond != 2 {
		t.Fatalf("agents = %+v", c.Agents)
	}
}

// A section kept as yaml.Node and given as an alias is checked by Decode.
func TestSectionAliasChecked(t *testing.T) {
	c, err := Parse([]byte("runtimes:\n  js: &a {max_memory: 1, bogus: 2}\n  wasm: *a\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out wasmSection
	err = c.Decode(c.Runtimes["wasm"], "runtimes.wasm", &out)
	if err == nil || !strings.Contains(err.Error(), `c.yaml:2: runtimes.wasm.bogus: unknown key "bogus"`) {
		t.Fatalf("Decode of an aliased section = %v", err)
	}
}

type treeSection struct {
	N    int           `yaml:"n"`
	Kids []treeSection `yaml:"kids"`
}

// Following aliases must not let a small file cost exponential time: each
// (node, type) pair is checked once.
func TestAliasBombBounded(t *testing.T) {
	bomb := func(first string) string {
		var b strings.Builder
		b.WriteString("t0: &t0 " + first + "\n")
		for i := 1; i <= 12; i++ {
			fmt.Fprintf(&b, "t%d: &t%d {kids: [", i, i)
			for j := 0; j < 10; j++ {
				if j > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "*t%d", i-1)
			}
			b.WriteString("]}\n")
		}
		return b.String()
	}
	run := func(name string, f func() error) error {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- f() }()
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: still running after 20s", name)
			return nil
		}
	}

	// 10^12 paths below t12: the unknown key is found once, at once.
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(bomb("{n: 1, bad: 2}")), &n); err != nil {
		t.Fatal(err)
	}
	err := run("check", func() error { return DecodeSection(n, &map[string]treeSection{}) })
	if err == nil || !strings.Contains(err.Error(), `config:1: t0.bad: unknown key "bad"`) || strings.Count(err.Error(), "unknown key") != 1 {
		t.Fatalf("bomb with an unknown key: %.500v", err)
	}
	// A well-formed bomb is left to yaml.v3's own limit on aliasing.
	if err := yaml.Unmarshal([]byte(bomb("{n: 1}")), &n); err != nil {
		t.Fatal(err)
	}
	err = run("decode", func() error { return DecodeSection(n, &map[string]treeSection{}) })
	if err == nil || !strings.Contains(err.Error(), "excessive aliasing") {
		t.Fatalf("well-formed bomb: %.500v", err)
	}
	// The same in the configuration file, anchors kept in a section.
	src := "server:\n" + strings.ReplaceAll("  "+strings.TrimSuffix(bomb("{grants: [x]}"), "\n"), "\n", "\n  ") + "\nagents: {a: *t12}\n"
	err = run("Parse", func() error { _, err := Parse([]byte(src), "c.yaml"); return err })
	if err == nil || !strings.Contains(err.Error(), `c.yaml:14: agents.a.kids: unknown key "kids"`) {
		t.Fatalf("bomb in the file: %.500v", err)
	}
}

func TestIntegerKeysRefuseFractions(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"limits: {max_params_bytes: 4.5}\n", "c.yaml:1: limits.max_params_bytes: want an integer, got 4.5"},
		{"limits:\n  max_call_depth: 2.7\n", "c.yaml:2: limits.max_call_depth: want an integer, got 2.7"},
		{"limits: {max_call_depth: 4.0}\n", "want an integer, got 4.0"},
		{"limits: {max_call_depth: -.inf}\n", "want an integer, got -.inf"},
		{"limits: {max_object_bytes: !!float 1024}\n", "limits.max_object_bytes: want an integer, got 1024"},
		{"audit: {max_bytes: 1e9}\n", "c.yaml:1: audit.max_bytes: want an integer, got 1e9"},
		{"rate_limits:\n  global: {per_second: 2.5, burst: 1.5}\n", "c.yaml:2: rate_limits.global.burst: want an integer, got 1.5"},
		{"limits: {default_deadline: 1.5ns}\n", `c.yaml:1: limits.default_deadline: "1.5ns" is not a whole number of nanoseconds`},
	}
	for _, c := range cases {
		parseErr(t, c.yaml, c.want)
	}
	c, err := Parse([]byte("rate_limits: {global: {per_second: 2.5, burst: 3}}\nlimits: {default_deadline: 1.5s, max_deadline: 0.25h}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.RateLimits.Global.PerSecond != 2.5 || c.Limits.DefaultDeadline != 1500*time.Millisecond || c.Limits.MaxDeadline != 15*time.Minute {
		t.Fatalf("decoded %+v %+v", c.RateLimits.Global, c.Limits)
	}

	// Sections: unsigned integers too.
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("pages: 1.5\n"), &n); err != nil {
		t.Fatal(err)
	}
	var sec struct {
		Pages uint32 `yaml:"pages"`
	}
	if err := DecodeSection(n, &sec); err == nil || !strings.Contains(err.Error(), "config:1: pages: want an integer, got 1.5") {
		t.Fatalf("uint32 from 1.5: %v (%+v)", err, sec)
	}
}

func TestWholeNanoseconds(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "1s": true, "1.5s": true, "-1.5s": true, "0.5us": true, "1.5\u00b5s": true, "1h0.5m": true,
		"1.000000001s": true, "1.5ns": false, "0.1ns": false, "1.0000000001s": false, "1s0.5ns": false, "+2.50ns": false, "2.0ns": true,
	} {
		if _, err := time.ParseDuration(s); err != nil {
			t.Fatalf("bad test duration %q: %v", s, err)
		}
		if got := wholeNanoseconds(s); got != want {
			t.Errorf("wholeNanoseconds(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestUnknownRuntime(t *testing.T) {
	parseErr(t, "runtimes: {nosuchruntime: {x: 1}}\n",
		`c.yaml:1: runtimes.nosuchruntime: unknown runtime "nosuchruntime" (known runtimes: js, python, wasm)`)
	parseErr(t, "runtimes:\n  javscript: {isolation: process}\n", `c.yaml:2: runtimes.javscript: unknown runtime "javscript", did you mean "js"?`)
	parseErr(t, "runtimes:\n  py: {}\n", `did you mean "python"?`)
	if _, err := Parse([]byte("runtimes: {js: {}, python: {}, wasm: {}}\n"), "c.yaml"); err != nil {
		t.Fatal(err)
	}
}

// KnownRuntimes must name exactly the runtimes: sections the code reads,
// found as cfg.Runtimes["name"] in the repository's (non-test) Go files.
func TestKnownRuntimesMatchCode(t *testing.T) {
	root := RepoRoot()
	if root == "" {
		t.Skip("not in a checkout of " + ModulePath)
	}
	found := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "node_modules" || path == filepath.Join(root, "config")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(src), "Runtimes[") {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ix, ok := n.(*ast.IndexExpr)
			if !ok {
				return true
			}
			sel, ok := ix.X.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Runtimes" {
				return true
			}
			lit, ok := ix.Index.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: Runtimes indexed by %T, not a string constant: add the name to KnownRuntimes by hand", fset.Position(ix.Pos()), ix.Index)
				return true
			}
			s, _ := strconv.Unquote(lit.Value)
			found[s] = append(found[s], fset.Position(ix.Pos()).String())
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := sortedKeys(found)
	if !slices.Equal(got, KnownRuntimes) {
		t.Fatalf("the code reads runtimes sections %q (%v), KnownRuntimes is %q", got, found, KnownRuntimes)
	}
}

func TestSecondDocumentRefused(t *testing.T) {
	parseErr(t, "limits: {max_call_depth: 3}\n---\nlimits: {max_call_depth: 99}\n", "c.yaml:2: a second YAML document starts here")
	parseErr(t, "data: x\n---\n", "c.yaml:2: a second YAML document starts here")
	parseErr(t, "data: x\n---\nlimits: [\n", "c.yaml:")
	c, err := Parse([]byte("# comment\n---\nlimits: {max_call_depth: 3}\n...\n"), "c.yaml")
	if err != nil || c.Limits.MaxCallDepth != 3 {
		t.Fatalf("one explicit document: %v", err)
	}
	for _, src := range []string{"", "# only a comment\n", "---\n"} {
		if _, err := Parse([]byte(src), "c.yaml"); err != nil {
			t.Fatalf("Parse(%q) = %v", src, err)
		}
	}
}

func TestDiscoveryKeys(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"discovery:\n  keys:\n    - {trust: Verified, jwks: k.json, expires: tomorrow}\n",
			`c.yaml:3: discovery.keys[0].expires: "tomorrow" is not an RFC 3339 time`},
		{"discovery:\n  keys:\n    - trust: Verified\n      jwks: k.json\n      not_before: 2026-01-01\n",
			`c.yaml:5: discovery.keys[0].not_before: "2026-01-01" is not an RFC 3339 time`},
		{"discovery:\n  keys:\n    - {trust: Untrusted, jwks: k.json}\n",
			"c.yaml:3: discovery.keys[0].trust: must be System, Verified or Community"},
		{"discovery:\n  keys:\n    - {trust: Friendly, jwks: k.json}\n",
			`c.yaml:3: discovery.keys[0].trust: unknown trust level "Friendly"`},
		{"discovery:\n  keys:\n    - {jwks: k.json}\n",
			"c.yaml:3: discovery.keys[0]: no trust"},
		{"discovery:\n  keys:\n    - {trust: Verified}\n",
			"c.yaml:3: discovery.keys[0]: give exactly one of jwks (file), jwks_url or jwk (inline)"},
		{"discovery:\n  keys:\n    - {trust: Verified, jwks: a.json}\n    - {trust: Verified, jwks: a.json, jwks_url: https://x/jwks}\n",
			"c.yaml:4: discovery.keys[1]: give exactly one of jwks (file), jwks_url or jwk (inline), not jwks and jwks_url"},
		{"server: &e yesterday\ndiscovery:\n  keys: [{trust: System, jwks: k.json, expires: *e}]\n",
			`c.yaml:1: discovery.keys[0].expires: "yesterday" is not an RFC 3339 time`},
	}
	for _, c := range cases {
		parseErr(t, c.yaml, c.want)
	}
	// The entries of docs/trust.md.
	ok := "discovery:\n  keys:\n" +
		"    - {trust: System,    jwks: keys/os-vendor.jwks.json}\n" +
		"    - {trust: Verified,  jwk: {kty: OKP, crv: Ed25519, x: \"abc\", kid: vendor-1}}\n" +
		"    - {trust: Community, jwks_url: https://hub.example/.well-known/jwks.json, expires: \"2027-12-31T00:00:00Z\"}\n" +
		"    - {trust: Verified,  jwks: keys/all.json, kid: only-this-one, not_before: 2026-01-01T00:00:00+02:00}\n"
	if _, err := Parse([]byte(ok), "c.yaml"); err != nil {
		t.Fatal(err)
	}
	// Shapes the discovery package's decoding refuses are left to it.
	for _, src := range []string{"discovery: []\n", "discovery: {keys: 3}\n", "discovery: {keys: [3, [x]]}\n", "discovery: {keys: [{trust: [x], jwks: a, expires: {a: 1}}]}\n"} {
		if _, err := Parse([]byte(src), "c.yaml"); err != nil {
			t.Errorf("Parse(%q) = %v", src, err)
		}
	}
}

// yaml.v3's type errors name a line only; the key path is that of the
// value yaml.v3 names on that line.
func TestTypeErrorPaths(t *testing.T) {
	parseErr(t, "limits:\n  max_call_depth:\n    deep\n", "c.yaml:3: limits.max_call_depth: cannot unmarshal !!str `deep` into int")
	parseErr(t, "limits: {max_params_bytes: 3, max_call_depth: deep}\n", "c.yaml:1: limits.max_call_depth: cannot unmarshal !!str `deep`")
	parseErr(t, "limits: {max_params_bytes: 3, max_call_depth: deeper-and-deeper}\n", "c.yaml:1: limits.max_call_depth: cannot unmarshal !!str `deeper-...`")
	parseErr(t, "agents:\n  bob:\n    grants:\n      {a: 1}\n", "c.yaml:4: agents.bob.grants: cannot unmarshal !!map into []string")
}

// Lines of keys inside sections owned by other packages are recorded, for
// their owners' error messages.
func TestSectionLines(t *testing.T) {
	c, err := Parse([]byte("server:\n  listen: x\ndiscovery:\n  keys:\n    - trust: Verified\n      jwks: k.json\nruntimes:\n  js: {isolation: process}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{"server.listen": 2, "discovery.keys[0]": 5, "discovery.keys[0].jwks": 6, "runtimes.js.isolation": 8} {
		if got := c.Line(path); got != want {
			t.Errorf("Line(%q) = %d, want %d", path, got, want)
		}
	}
}

func TestRegistrySemverCheck(t *testing.T) {
	if c := Default(); c.Registry.SemverCheck != SemverWarn {
		t.Fatalf("default registry.semver_check = %q, want warn", c.Registry.SemverCheck)
	}
	for _, mode := range []string{SemverWarn, SemverRefuse, SemverOff} {
		c, err := Parse([]byte("registry:\n  semver_check: "+mode+"\n"), "c.yaml")
		if err != nil || c.Registry.SemverCheck != mode {
			t.Fatalf("semver_check %s: %v, %+v", mode, err, c)
		}
	}
	parseErr(t, "registry:\n  semver_check: strict\n", `c.yaml:2: registry.semver_check: "strict" is not warn, refuse or off`)
	parseErr(t, "registry:\n  semver_chek: off\n", `c.yaml:2: registry.semver_chek: unknown key "semver_chek"`)
}
