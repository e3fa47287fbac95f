package config

import (
	"strings"
	"testing"
)

// TestSwappedLettersSuggestKey: a key of four letters or less with two
// adjacent letters swapped (`ptah` for path, `wrie` for wire) is two
// edits away, past the one a short key's "did you mean" allowed, so the
// error named the key with no suggestion, or a shorter key one letter
// away (`jwsk`: "did you mean jwk?", for jwks). The key with the letters
// in order is suggested, in the file and in a section decoded by its
// owner alike.
func TestSwappedLettersSuggestKey(t *testing.T) {
	for in, want := range map[string]string{
		"audit:\n  ptah: /var/log/a.jsonl\n":                           `c.yaml:2: audit.ptah: unknown key "ptah", did you mean "path"?`,
		"dtaa: /srv/aios\n":                                            `c.yaml:1: dtaa: unknown key "dtaa", did you mean "data"?`,
		"agents:\n  a:\n    raet: {per_second: 1}\n":                   `c.yaml:3: agents.a.raet: unknown key "raet", did you mean "rate"?`,
		"inference:\n  rul: http://127.0.0.1:11434/v1\n":               `c.yaml:2: inference.rul: unknown key "rul", did you mean "url"?`,
		"discovery:\n  keys:\n    - {trust: Verified, jwsk: k.json}\n": `c.yaml:3: discovery.keys[0].jwsk: unknown key "jwsk", did you mean "jwks"?`,
	} {
		_, err := Parse([]byte(in), "c.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q:\n got %v\nwant %s…", in, err, want)
		}
	}
	var sec struct {
		Wire string `yaml:"wire"`
		Spin bool   `yaml:"spin"`
	}
	cfg, err := Parse([]byte("runtimes:\n  python:\n    wrie: json\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.Decode(cfg.Runtimes["python"], "runtimes.python", &sec)
	if want := `c.yaml:3: runtimes.python.wrie: unknown key "wrie", did you mean "wire"?`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("section: %v, want %s…", err, want)
	}
	// Not every short key near another is a swap: no suggestion for one
	// that is none.
	if _, err := Parse([]byte("audit:\n  zzzz: 1\n"), "c.yaml"); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("zzzz: %v", err)
	}
}
