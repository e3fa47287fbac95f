package main

import (
	"strings"
	"testing"
)

// TestVersionFlagPointsAtVersionCommand: `aios-host --version`, the first
// thing many newcomers type, said "--version is not a global flag … a
// command's own flags go after its name: aios-host COMMAND … --version …",
// sending them to put it after a command (where only call's --version, a
// SemVer constraint, takes it) instead of to the version command README
// lists (found by p114). It now names 'aios-host version' (exit 2 still),
// and --version after call keeps its meaning.
func TestVersionFlagPointsAtVersionCommand(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{{"--version"}, {"-version"}} {
		code, out, errs := e.bare(args...)
		if code != exitUsage || out != "" {
			t.Fatalf("%v: exit %d, stdout %q", args, code, out)
		}
		if !strings.Contains(errs, "aios-host version") || strings.Contains(errs, "aios-host COMMAND") {
			t.Errorf("%v: stderr %q; want it to point at 'aios-host version'", args, errs)
		}
	}
	if code, _, errs := e.bare("--version", "call", "x"); code != exitUsage || !strings.Contains(errs, "aios-host call … --version") {
		t.Errorf("--version before call: exit %d, stderr %q; want where call's --version goes", code, errs)
	}
}
