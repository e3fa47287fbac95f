package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCallEmptyAgentRefused: call --as "" (a script's --as "$AGENT"
// with AGENT unset) was taken as no --as at all: the call ran as the
// config's default agent, cli, with its grants, or through a running host
// as the agent of the caller's uid, where an agent of the script's choice
// was meant. An empty --as is a usage error (exit 2), as an empty --data
// is, and nothing is called.
func TestCallEmptyAgentRefused(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{
		{"call", "analyze-complexity", "{}", "--as", ""},
		{"call", "analyze-complexity", "{}", "--as="},
	} {
		code, out, errs := e.run("", args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, `--as "": empty value`) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if b, err := os.ReadFile(filepath.Join(e.data, "audit.jsonl")); err == nil && len(b) > 0 {
		t.Errorf("a call was recorded:\n%s", b)
	}
}
