package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditShowSinceNotBeforeUntilRefused: --since and --until given the
// wrong way round (--since 1h --until 2h: from an hour ago to two hours
// ago) selected nothing and said "no record matches", exit 0, which reads
// as "no call in that hour". A range that no time can be in is a usage
// error (exit 2) naming both values; a range the right way round still
// shows its records.
func TestAuditShowSinceNotBeforeUntilRefused(t *testing.T) {
	e := newEnv(t)
	writeRotated(t, filepath.Join(e.data, "audit.jsonl"), 4, 0) // records at 1970-01-01T00:00:01Z … :04Z
	for _, args := range [][]string{
		{"--since", "1h", "--until", "2h"},
		{"--since", "1970-01-01T00:00:03Z", "--until", "1970-01-01T00:00:02Z"},
		{"--since", "1970-01-01T00:00:03Z", "--until", "1970-01-01T00:00:03Z"},
	} {
		code, out, errs := e.run("", append([]string{"audit", "show"}, args...)...)
		if code != exitUsage || out != "" || !strings.Contains(errs, "--since "+args[1]) || !strings.Contains(errs, "--until "+args[3]) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	code, out, errs := e.run("", "audit", "show", "--since", "1970-01-01T00:00:02Z", "--until", "1970-01-01T00:00:03Z")
	if code != 0 || !strings.Contains(out, "c2") || strings.Contains(out, "c3") {
		t.Fatalf("a range the right way round: %d %q %s", code, out, errs)
	}
}
