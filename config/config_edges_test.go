package config

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/trust"
)

// TestDurationZero: example.yaml documents "flush_delay: ... (0 =
// 1ms)", and the server and discovery sections say "leave it out, or 0,
// for the default", but a bare 0 was refused ("cannot unmarshal !!int `0`
// into time.Duration"): yaml.v3 takes a duration from a string only. 0 is
// the zero duration (as time.ParseDuration reads "0"); other bare numbers
// stay refused, a unit being needed.
func TestDurationZero(t *testing.T) {
	c, err := Parse([]byte("audit:\n  flush_delay: 0\n"), "c.yaml")
	if err != nil {
		t.Fatalf("flush_delay: 0: %v", err)
	}
	if c.Audit.FlushDelay != 0 {
		t.Errorf("flush_delay = %v, want 0", c.Audit.FlushDelay)
	}
	// In a section decoded by its owner too.
	c, err = Parse([]byte("discovery:\n  debounce: 0\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Debounce time.Duration `yaml:"debounce"`
	}
	d.Debounce = time.Hour
	if err := c.Decode(c.Discovery, "discovery", &d); err != nil || d.Debounce != 0 {
		t.Errorf("discovery.debounce: 0: %v, %v", d.Debounce, err)
	}
	// Zero stays refused where a positive duration is needed, by validation.
	_, err = Parse([]byte("limits:\n  default_deadline: 0\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "c.yaml:2: limits.default_deadline: must be a positive duration") {
		t.Errorf("default_deadline: 0: %v", err)
	}
	// A number without a unit is still refused.
	_, err = Parse([]byte("limits:\n  default_deadline: 30\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "c.yaml:2: limits.default_deadline: cannot unmarshal !!int `30`") {
		t.Errorf("default_deadline: 30: %v", err)
	}
}

// TestExampleNamesEveryKey: config/example.yaml "documents every key"
// (README, package doc) but left out inference.api_key_header. Every key
// of the file's schema (the sections kept as yaml.Node are their owners')
// must appear in it.
func TestExampleNamesEveryKey(t *testing.T) {
	b, err := os.ReadFile("example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[reflect.Type]bool{}
	var walk func(ty reflect.Type, path string)
	walk = func(ty reflect.Type, path string) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || ty == nodeType || seen[ty] {
			return
		}
		seen[ty] = true
		for name, f := range yamlFields(ty) {
			if !regexp.MustCompile(`(?m)^[ #]*(- )?` + regexp.QuoteMeta(name) + `:|[{ ]` + regexp.QuoteMeta(name) + `:`).Match(b) {
				t.Errorf("example.yaml does not name %s", join(path, name))
			}
			walk(f.Type, join(path, name))
		}
	}
	walk(reflect.TypeOf(Config{}), "")
}

// TestDiscoveryKeyTypo: a misspelt key in a discovery.keys entry
// ({trust: Verified, jwsk: f}) was reported as "give exactly one of jwks
// (file), jwks_url or jwk (inline)", which hides the typo; it is named,
// with its line and a did-you-mean, as unknown keys are everywhere else.
func TestDiscoveryKeyTypo(t *testing.T) {
	_, err := Parse([]byte("discovery:\n  keys:\n    - trust: Verified\n      jwsk: k.json\n"), "c.yaml")
	want := `c.yaml:4: discovery.keys[0].jwsk: unknown key "jwsk", did you mean`
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "exactly one") {
		t.Errorf("err = %v, want %s…", err, want)
	}
}

// TestDiscoveryKeyFields: discoveryKeyFields are trust.KeyConfig's
// keys.
func TestDiscoveryKeyFields(t *testing.T) {
	got := sortedKeys(yamlFields(reflect.TypeOf(trust.KeyConfig{})))
	if !slices.Equal(got, discoveryKeyFields) {
		t.Errorf("trust.KeyConfig's keys %v, discoveryKeyFields %v", got, discoveryKeyFields)
	}
}

// TestDurationTooLong: a duration past 292 years ("9999999999h",
// "300y" is no duration) was refused with "want a duration such as 30s,
// 500ms or 2m", which it is; the error says it is too long.
func TestDurationTooLong(t *testing.T) {
	for _, v := range []string{"9999999999h", "2562048h", "99999999999999999999ns", "1h9999999999999m"} {
		_, err := Parse([]byte("limits:\n  max_deadline: "+v+"\n"), "c.yaml")
		want := "c.yaml:2: limits.max_deadline: \"" + v + "\" is longer than the longest duration, 2562047h47m16.854775807s"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: err = %v, want %s…", v, err, want)
		}
	}
	for _, v := range []string{"1d", "5 s", "s", "1.2.3s"} {
		_, err := Parse([]byte("limits:\n  max_deadline: "+v+"\n"), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), "want a duration such as 30s") {
			t.Errorf("%s: err = %v", v, err)
		}
	}
	if c, err := Parse([]byte("limits:\n  max_deadline: 2562047h\n"), "c.yaml"); err != nil || c.Limits.MaxDeadline != 2562047*time.Hour {
		t.Errorf("2562047h: %v", err)
	}
}

// TestDuplicateKeyPath: a key given twice was reported under the
// path of whatever value sat on the line of its second occurrence
// ("c.yaml:2: limits.max_call_depth: mapping key \"limits\" already
// defined at line 1"), or under none; it names the key given twice.
func TestDuplicateKeyPath(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"limits: {max_call_depth: 3}\nlimits: {max_call_depth: 4}\n", `c.yaml:2: limits: mapping key "limits" already defined at line 1`},
		{"agents:\n  cli:\n    grants: [Inference]\n  cli:\n    grants: []\n", `c.yaml:4: agents.cli: mapping key "cli" already defined at line 2`},
		{"providers:\n  org.a.b: {disabled: true}\n  org.a.b: {disabled: false}\n", `c.yaml:3: providers["org.a.b"]: mapping key "org.a.b" already defined at line 2`},
		{"limits:\n  max_call_depth: 3\n  max_call_depth: 4\n", `c.yaml:3: limits.max_call_depth: mapping key "max_call_depth" already defined at line 2`},
	} {
		_, err := Parse([]byte(tc.doc), "c.yaml")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.doc, err, tc.want)
		}
	}
}

// TestIntegerTooLarge: a count or size past its field's range
// (max_call_depth: 9223372036854775808) was refused with "want a whole
// number", which it is; the error says it is too large.
func TestIntegerTooLarge(t *testing.T) {
	for _, v := range []string{"9223372036854775808", "0x8000000000000000", "9_223_372_036_854_775_808"} {
		_, err := Parse([]byte("limits:\n  max_object_bytes: "+v+"\n"), "c.yaml")
		want := "c.yaml:2: limits.max_object_bytes: " + v + " is too large (at most 9223372036854775807)"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: err = %v, want %s…", v, err, want)
		}
	}
	if c, err := Parse([]byte("limits:\n  max_object_bytes: 9223372036854775807\n  max_call_depth: 0x10\n"), "c.yaml"); err != nil || c.Limits.MaxCallDepth != 16 {
		t.Errorf("in range: %v", err)
	}
}

// TestAIOSDataHome: AIOS_DATA="~/state" (quoted, or from a systemd
// Environment= line: no shell expands it) was taken literally, a folder
// named "~" made in the working directory.
func TestAIOSDataHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("AIOS_DATA", "~/state")
	if got := DefaultDataDir(); got != filepath.Join(home, "state") {
		t.Errorf("DefaultDataDir() = %q", got)
	}
}

// TestKeyWithAWordLeftOutSuggested: `limits.max_depth` listed no key to
// use, where `max_call_depth` was meant (a word left out is more edits
// than a misspelling); the one key holding the words in order is named.
func TestKeyWithAWordLeftOutSuggested(t *testing.T) {
	_, err := Parse([]byte("limits:\n  max_depth: 3\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), `unknown key "max_depth", did you mean "max_call_depth"?`) {
		t.Errorf("err = %v; want a did-you-mean naming max_call_depth", err)
	}
}
