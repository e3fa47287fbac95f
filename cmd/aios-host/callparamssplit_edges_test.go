package main

import (
	"strings"
	"testing"
)

// TestCallParamsSplitByShellSaysQuote: JSON params typed without quotes
// around them (call analyze-complexity {"object_id": "x"}) reach the
// command as several arguments, the shell having split them at the
// space and dropped their double quotes. That was refused as "call
// needs a tool name and optional JSON params, got 3 arguments", which
// does not say what went wrong; it is still refused (exit 2), saying
// that the params came in pieces and to quote them as one argument.
func TestCallParamsSplitByShellSaysQuote(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"{object_id:", "x}"},           // {"object_id": "x"} unquoted
		{"{", "object_id:", "x", "}"},   // { "object_id": "x" }
		{"[1,", "2]"},                   // an array: the schema's error, once quoted
		{"{object_id:", "x}", "--json"}, // a flag after them changes nothing
	} {
		code, out, errs := e.run("", append([]string{"call", "analyze-complexity"}, args...)...)
		want := "the JSON params reached aios-host as "
		if code != exitUsage || out != "" || !strings.Contains(errs, want) || !strings.Contains(errs, "single quotes") {
			t.Errorf("call analyze-complexity %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, out, errs, want)
		}
	}
	// Not JSON split up: the count, as before.
	if code, _, errs := e.run("", "call", "analyze-complexity", "a", "b"); code != exitUsage || !strings.Contains(errs, "got 3 arguments") || strings.Contains(errs, "single quotes") {
		t.Errorf("call analyze-complexity a b: %d %q", code, errs)
	}
}
