package main

import (
	"strings"
	"testing"
)

// TestAuditUnknownSubcommandNamed: `aios-host audit verfy` (a typo) printed
// only "want: audit verify … or audit show …", naming neither the word it
// did not take nor the sub-command meant; `version extra` said "takes no
// arguments" without the arguments. Now the unknown sub-command is named
// with the one meant, and version names what it was given, as keygen,
// list, run and mcp do; both still exit 2.
func TestAuditUnknownSubcommandNamed(t *testing.T) {
	e := newEnv(t)
	code, out, errs := e.run("", "audit", "verfy")
	first, _, _ := strings.Cut(errs, "\n")
	if code != exitUsage || out != "" || !strings.Contains(first, `"verfy"`) || !strings.Contains(first, `"verify"`) {
		t.Errorf("audit verfy: %d %q, first line %q", code, out, first)
	}
	code, _, errs = e.run("", "audit", "nosuch")
	first, _, _ = strings.Cut(errs, "\n")
	if code != exitUsage || !strings.Contains(first, `"nosuch"`) || !strings.Contains(first, "verify, anchor or show") {
		t.Errorf("audit nosuch: %d, first line %q", code, first)
	}
	code, _, errs = e.run("", "audit")
	if code != exitUsage || !strings.Contains(errs, "audit verify") {
		t.Errorf("audit: %d %q", code, errs)
	}
	code, _, errs = e.run("", "version", "extra")
	first, _, _ = strings.Cut(errs, "\n")
	if code != exitUsage || !strings.Contains(first, `"extra"`) {
		t.Errorf("version extra: %d, first line %q", code, first)
	}
}

// TestSpaceWrongArgumentsNamed: `space spaces -- --data D` (a global flag
// after "--", so an argument) said "space spaces takes no arguments, got
// 2", and `space list a b` "got 2 argument(s)", not which: now the
// arguments are named, as keygen and list name theirs.
func TestSpaceWrongArgumentsNamed(t *testing.T) {
	e := newEnv(t)
	code, _, errs := e.run("", "space", "spaces", "--", "--data", "/elsewhere")
	first, _, _ := strings.Cut(errs, "\n")
	if code != exitUsage || !strings.Contains(first, `"--data" "/elsewhere"`) {
		t.Errorf("space spaces -- --data: %d, first line %q", code, first)
	}
	code, _, errs = e.run("", "space", "list", "docs", "extra")
	first, _, _ = strings.Cut(errs, "\n")
	if code != exitUsage || !strings.Contains(first, `"docs" "extra"`) || !strings.Contains(first, "takes SPACE") {
		t.Errorf("space list docs extra: %d, first line %q", code, first)
	}
}
