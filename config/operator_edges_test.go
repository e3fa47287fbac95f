package config

import (
	"strings"
	"testing"
)

// TestYAMLErrorLines: yaml.v3 leaves "line N" out of a syntax error
// on the first line of the file and of an alias of an unknown anchor, so
// the error named the file only ("c.yaml: found character that cannot
// start any token"), without the line the README promises.
func TestYAMLErrorLines(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"\tlimits: {}\n", "c.yaml:1: YAML syntax: found character that cannot start any token"},
		{"limits: 1: 2\n", "c.yaml:1: YAML syntax: mapping values are not allowed in this context"},
		{"%FOO\nlimits: {}\n", "c.yaml:1: YAML syntax: found unknown directive name"},
		{"limits:\n  max_call_depth: 3\nagents: *nope\n", "c.yaml:3: YAML: unknown anchor 'nope' referenced"},
		{"limits:\n\t- x\n", "c.yaml:2: YAML syntax: found character that cannot start any token"},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
