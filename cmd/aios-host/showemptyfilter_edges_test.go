package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditShowEmptyFilterRefused: an empty value of an audit show
// filter (a script's --call "$ID" or --caller "$AGENT" with the variable
// unset) was taken as no filter: the whole log was printed, exit 0, as if
// every record were that call's tree or that agent's. Each is a usage
// error (exit 2) naming the flag, as the check flags' empty values are
// (TestEmptyCheckFlagsRefused).
func TestAuditShowEmptyFilterRefused(t *testing.T) {
	e := newEnv(t)
	writeRotated(t, filepath.Join(e.data, "audit.jsonl"), 4, 0)
	if code, out, errs := e.run("", "audit", "show"); code != 0 || !strings.Contains(out, "c4") {
		t.Fatalf("audit show: %d %q %s", code, out, errs)
	}
	for _, flag := range []string{"--tool", "--caller", "--principal", "--session", "--remote", "--outcome", "--call", "--since", "--until"} {
		for _, args := range [][]string{{"audit", "show", flag, ""}, {"audit", "show", flag + "="}} {
			code, out, errs := e.run("", args...)
			if code != exitUsage || out != "" || !strings.Contains(errs, flag+` "": empty value`) {
				t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
			}
		}
	}
}
