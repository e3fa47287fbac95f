package config

import "testing"

// TestAliasTypeErrorsNameEachUse: a mistyped value inside an anchored
// mapping used again through aliases (or a merge) was reported once per
// use, each time as the same line, key path and words, the same error
// two or three times over. The first names the anchored value; each
// other names the key of its use and the alias it came through, as the
// other errors about aliased values do.
func TestAliasTypeErrorsNameEachUse(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"rate_limits:\n  per_tool:\n    a: &r {per_second: fast}\n    b: *r\n    c: *r\n",
			"c.yaml:3: rate_limits.per_tool.a.per_second: cannot unmarshal !!str `fast` into float64 (want a number)\n" +
				"c.yaml:3: rate_limits.per_tool.b.per_second: cannot unmarshal !!str `fast` into float64 (want a number) (through the alias *r at line 4)\n" +
				"c.yaml:3: rate_limits.per_tool.c.per_second: cannot unmarshal !!str `fast` into float64 (want a number) (through the alias *r at line 5)"},
		{"agents:\n  a: &g\n    grants: [CallTool(*)]\n    max_permission: [x]\n  b:\n    <<: *g\n",
			"c.yaml:4: agents.a.max_permission: cannot unmarshal !!seq into string (want a single value, not a list or a mapping)\n" +
				"c.yaml:4: agents.b.max_permission: cannot unmarshal !!seq into string (want a single value, not a list or a mapping) (through the alias *g at line 6)"},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.yaml, err, tc.want)
		}
	}
}
