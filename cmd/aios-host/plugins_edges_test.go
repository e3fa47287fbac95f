package main

import (
	"strings"
	"testing"
)

// TestNoBundledPluginsSaysSo: README says that with no flags the host
// loads the bundled samples/plugins folder, found next to the binary or
// above the working directory. Run from elsewhere (a binary copied out of
// the checkout, go install), no folder was found and `list` showed the one
// built-in tool without a word of why, where the README's tour shows ten
// (found by p114). The command now warns that no plugin folder is loaded,
// why, and which flag or key gives one; with --plugins it says nothing.
func TestNoBundledPluginsSaysSo(t *testing.T) {
	e := newEnv(t)
	t.Chdir(t.TempDir()) // outside the checkout; the test binary is too
	code, out, errs := e.bare("list", "--data", e.data)
	if code != 0 || !strings.Contains(out, "analyze-complexity") {
		t.Fatalf("list: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, want := range []string{"no plugin folder", "samples/plugins", "--plugins"} {
		if !strings.Contains(errs, want) {
			t.Errorf("list without a plugin folder: stderr %q does not say %q", errs, want)
		}
	}
	if _, _, errs := e.run("", "list"); strings.Contains(errs, "no plugin folder") {
		t.Errorf("list --plugins DIR warned of no plugin folder: %q", errs)
	}
}
