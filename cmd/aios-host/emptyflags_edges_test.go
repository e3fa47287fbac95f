package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyCheckFlagsRefused: an empty value of a flag that names
// what a check is made against (a script's --anchor "$SAVED" with SAVED
// lost) was taken as no flag: audit verify --anchor "" checked the chain
// alone and said OK of a log cut short after the anchored record, and
// verify --jwks "" checked the card against the config's keys instead of
// the file meant; audit anchor --out "" wrote the anchor to standard
// output and exited 0, no file written; audit anchor --kid "" signed with
// the default key id. Each is a usage error (exit 2) naming the flag.
func TestEmptyCheckFlagsRefused(t *testing.T) {
	e := newEnv(t)
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := os.WriteFile(log, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	card := filepath.Join(t.TempDir(), "adapter.json")
	if err := os.WriteFile(card, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"audit", "verify", "--anchor", "", log}, "--anchor"},
		{[]string{"audit", "verify", "--anchor=", log}, "--anchor"},
		{[]string{"audit", "verify", "--signed-anchor", "", "--jwks", "", log}, "--signed-anchor"},
		{[]string{"audit", "verify", "--after", "", log}, "--after"},
		{[]string{"audit", "anchor", "--key", card, "--out", "", log}, "--out"},
		// --kid "" signed with the default key id (found by p115).
		{[]string{"audit", "anchor", "--key", card, "--kid", "", log}, "--kid"},
		{[]string{"verify", card, "--jwks", ""}, "--jwks"},
		{[]string{"verify", card, "--jwks-url", ""}, "--jwks-url"},
	} {
		code, out, errs := e.run("", tc.args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, tc.flag+` "": empty value`) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", tc.args, code, out, errs)
		}
	}
}
