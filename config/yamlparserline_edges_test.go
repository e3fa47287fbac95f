package config

import (
	"strings"
	"testing"
)

// TestYAMLParserErrorNamesItsLine: yaml.v3 numbers the lines of its
// parser's errors (an unclosed [ or {, a key indented wrong, a "- item"
// where a key should be) from 0, its scanner's from 1, so a config with
// such a mistake was said to be wrong at the line before it ("c.yaml:1"
// for a "[" left open on line 2; a running host's watch said the same of
// an edit). The line given is the file's, the one the mistake is on.
func TestYAMLParserErrorNamesItsLine(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"data: /tmp/x\nlimits: [unclosed\n", "c.yaml:2: YAML syntax: did not find expected ',' or ']'"},
		{"data: /tmp/x\n\n\nlimits: {a: 1\nplugins: []\n", "c.yaml:4: YAML syntax: did not find expected ',' or '}'"},
		{"data: /tmp/x\nlimits:\n  max_call_depth: 3\n bad: 1\n", "c.yaml:4: YAML syntax: did not find expected key"},
		{"data: /tmp/x\n- a\n", "c.yaml:2: YAML syntax: did not find expected key"},
		// The scanner's lines were right, and stay so.
		{"data: /tmp/x\nx: a: b\n", "c.yaml:2: YAML syntax: mapping values are not allowed in this context"},
		{"data: /tmp/x\nx: - a\n", "c.yaml:2: YAML syntax: block sequence entries are not allowed in this context"},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
