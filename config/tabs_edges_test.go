package config

import (
	"strings"
	"testing"
)

// TestTabIndentNamed: a tab indenting a line (an editor's habit) was
// refused as "found character that cannot start any token", naming no
// tab, or as "found a tab character that violates indentation" at the
// line of the key before it, blank and comment lines between included:
// the operator looked for the mistake on the wrong line. The error names
// the tab's line and says YAML indents with spaces; a character that
// cannot start a token for another reason gets no such hint.
func TestTabIndentNamed(t *testing.T) {
	const hint = " (a tab indents this line: YAML indents with spaces only)"
	for _, tc := range []struct{ yaml, want string }{
		{"\tlimits: {}\n", "c.yaml:1: YAML syntax: found character that cannot start any token" + hint},
		{"limits:\n\tmax_call_depth: 3\n", "c.yaml:2: YAML syntax: found character that cannot start any token" + hint},
		{"limits:\n  max_call_depth: 3\n\tmax_result_bytes: 5\n", "c.yaml:3: YAML syntax: found a tab character that violates indentation" + hint},
		{"limits:\n    max_call_depth: 3\n\n# more\n\t  max_result_bytes: 5\n", "c.yaml:5: YAML syntax: found character that cannot start any token" + hint},
		{"agents:\n  cli:\n    grants:\n      - Inference\n\t- CallTool(*)\n", "c.yaml:5: YAML syntax: found a tab character that violates indentation" + hint},
		{"limits: @x\n", "c.yaml:1: YAML syntax: found character that cannot start any token"},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.yaml, err, tc.want)
		}
	}
	// A tab after a key's colon separates, as a space does.
	if c, err := Parse([]byte("limits:\n  max_call_depth:\t3\n"), "c.yaml"); err != nil || c.Limits.MaxCallDepth != 3 {
		t.Errorf("tab after the colon: %v", err)
	}
	if _, err := Parse([]byte("limits:\n  max_call_depth: 3\n\tmax_result_bytes: 5\n"), "c.yaml"); err != nil && strings.Contains(err.Error(), "c.yaml:2:") {
		t.Errorf("the line before the tab's named: %v", err)
	}
}
