package main

import (
	"strings"
	"testing"
)

// TestCallNullParamsRefusedAlike: params that are JSON null
// (`call TOOL "$(jq -c .args req.json)"` with no args in the file) were
// sent to a running host as no params at all, which called the tool with
// {} (tools/call takes arguments: null as absent), while the same command
// in this process gave the tool null, InvalidParams "expected object, got
// null", exit 1: one command line, two outcomes depending on whether a
// host was running. Null params are now refused before anything is
// called, as empty params are: exit 2 saying they are null, with a host
// running or not, from the command line and from standard input.
func TestCallNullParamsRefusedAlike(t *testing.T) {
	e := newEnv(t)
	check := func(where string) {
		t.Helper()
		for _, tc := range []struct{ stdin, arg string }{{"", "null"}, {"", " null\n"}, {"null\n", "-"}} {
			code, out, errs := e.run(tc.stdin, "call", "analyze-complexity", tc.arg, "--json")
			if code != exitUsage || out != "" || !strings.Contains(errs, "null") || !strings.Contains(errs, "want a JSON object") {
				t.Errorf("%s: call %q (stdin %q): exit %d, stdout %q, stderr %q; want exit 2 saying the params are null", where, tc.arg, tc.stdin, code, out, errs)
			}
		}
	}
	check("in this process")
	r := e.startRun("aios-host serving")
	check("through a running host")
	r.stop()
}
