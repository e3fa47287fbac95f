package main

import (
	"strings"
	"testing"
)

// `audit verify` without FILE listed the rotated files, then read them and
// the current file. A running host that rotated in between (every
// audit.max_bytes; a verify of a large log takes seconds) left at the path
// a file that follows one the listing lacked, and verify said FAIL ("the
// files do not join") about a whole log.
func TestVerifyRacingRotation(t *testing.T) {
	e := newEnv(t)
	rotatingLog(t, e)
	code, out, errs := e.run("", "audit", "verify")
	if code != 0 || !strings.Contains(out, " 9 records, anchor 9:") {
		t.Fatalf("verify while the log rotates: %d %q %s", code, out, errs)
	}
}
