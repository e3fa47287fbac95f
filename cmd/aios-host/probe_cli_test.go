package main

import (
	"strings"
	"testing"
)

// TestProbeAuditVerifyReadErrors: a file that cannot be read is named once
// ("read X: read X: is a directory" before).
func TestProbeAuditVerifyReadErrors(t *testing.T) {
	e := newEnv(t)
	code, _, errs := e.run("", "audit", "verify", e.plugins)
	if code != exitFail || strings.Count(errs, e.plugins) != 1 {
		t.Errorf("verify of a folder: %d %q", code, errs)
	}
	code, _, errs = e.run("", "audit", "verify", e.plugins+"/none.jsonl")
	if code != exitFail || strings.Count(errs, "none.jsonl") != 1 {
		t.Errorf("verify of a missing file: %d %q", code, errs)
	}
}

// TestProbeCallTimeoutZero: README says --timeout is at least 1ms, but an
// explicit 0 was taken as "no --timeout" (the default deadline).
func TestProbeCallTimeoutZero(t *testing.T) {
	e := newEnv(t)
	code, _, errs := e.run("", "call", "analyze-complexity", "{}", "--timeout", "0")
	if code != exitUsage || !strings.Contains(errs, "--timeout 0s is below 1ms") {
		t.Errorf("--timeout 0: %d %q", code, errs)
	}
}
