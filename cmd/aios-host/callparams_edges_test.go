package main

import (
	"strings"
	"testing"
)

// TestCallTruncatedParamsSayWhere: params cut short ('{"a":1', a closing
// brace lost to shell quoting) were refused as "params are not valid JSON:
// json: unexpected EOF", without the byte every other syntax error names
// and README's "Params that are not JSON exit 2 saying where" promises
// (found by p114). The message names where the JSON ends and that it is
// incomplete there, on the command line and from standard input.
func TestCallTruncatedParamsSayWhere(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct{ stdin, arg, at string }{
		{"", `{"a":1`, "at byte 6"},
		{"", `{"a":[1,2`, "at byte 9"},
		{`{"a":"x`, "-", "at byte 7"},
	} {
		code, out, errs := e.run(tc.stdin, "call", "analyze-complexity", tc.arg)
		if code != exitUsage || out != "" {
			t.Fatalf("call %q (stdin %q): exit %d, stdout %q; want 2 and nothing", tc.arg, tc.stdin, code, out)
		}
		if !strings.Contains(errs, "not valid JSON") || !strings.Contains(errs, tc.at) || !strings.Contains(errs, "ends") {
			t.Errorf("call %q (stdin %q): stderr %q; want it to say the JSON ends %s", tc.arg, tc.stdin, errs, tc.at)
		}
	}
}
