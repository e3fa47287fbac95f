package main

import (
	"strings"
	"testing"
)

// TestRepeatedFlagRefused: a flag that takes one value given twice kept
// the last value and said nothing: `audit show --tool a --tool b` showed
// b's records alone (a script adding a filter to a list of flags), `verify
// --jwks a --jwks b` looked for the key in b alone, `call --timeout 1s
// --timeout 2s` waited 2 s. It is a usage error now (exit 2) naming the
// flag and both values, before or after the command name, in --name=value
// form too; --plugins (repeatable) and switches such as --json may still be
// given again, and a "--" ends the check as it ends the flags.
func TestRepeatedFlagRefused(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"audit", "show", "--tool", "a", "--tool", "b"},
		{"call", "analyze-complexity", "{}", "--timeout", "1s", "--timeout=2s"},
		{"verify", "card.json", "--jwks", "a.json", "--jwks", "b.json"},
		{"--log-level", "warn", "--log-level=error", "version"},
		{"version", "--config", "a.yaml", "--config", "b.yaml"},
	} {
		code, out, errs := e.bare(args...)
		name := ""
		for _, a := range args {
			if strings.HasPrefix(a, "--") {
				name, _, _ = strings.Cut(a, "=")
				break
			}
		}
		if code != exitUsage || out != "" || !strings.Contains(errs, name+" given more than once") {
			t.Errorf("%q: exit %d, stdout %q, stderr %.200q; want exit 2 saying %s is given more than once", args, code, out, errs, name)
		}
	}
	// What may be given again still works.
	for _, args := range [][]string{
		{"list", "--plugins", e.plugins, "--json", "--json"},
		{"--plugins", e.plugins, "--plugins", e.plugins, "list"},
		{"space", "list", "docs", "--", "--data", "x", "--data", "y"},
	} {
		code, _, errs := e.run("", args...)
		if strings.Contains(errs, "more than once") {
			t.Errorf("%q: exit %d, stderr %.200q; want no refusal", args, code, errs)
		}
	}
}

// A global flag given before the command name and again after it
// (`aios-host --data A list --data B`, one from a wrapper script, one from
// its caller) took the one after it without a word, where the same flag
// twice on one side is refused. It is refused too now, naming both
// values; --plugins (repeatable) may still be given on both sides.
func TestGlobalFlagRepeatedAcrossCommandRefused(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"--data", "a", "version", "--data", "b"},
		{"--log-level=warn", "list", "--log-level", "error"},
		{"--config", "a.yaml", "call", "analyze-complexity", "{}", "--config=b.yaml"},
	} {
		code, out, errs := e.bare(args...)
		name, _, _ := strings.Cut(args[0], "=")
		if code != exitUsage || out != "" || !strings.Contains(errs, name+" given more than once") {
			t.Errorf("%q: exit %d, stdout %q, stderr %.200q; want exit 2 saying %s is given more than once", args, code, out, errs, name)
		}
	}
	code, _, errs := e.run("", "--plugins", e.plugins, "list", "--plugins", e.plugins)
	if code != exitOK || strings.Contains(errs, "more than once") {
		t.Errorf("--plugins on both sides: exit %d, stderr %.200q; want it listed", code, errs)
	}
}
