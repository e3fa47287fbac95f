package main

import (
	"os"
	"path/filepath"
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

// TestNoBundledPluginsNamesWhereItLooked: the warning said the folder was
// not found "next to the executable (../samples/plugins)", a path a reader
// takes from the working directory, where the host had looked beside the
// executable's folder. It names the folder it looked for and the working
// directory it searched above.
func TestNoBundledPluginsNamesWhereItLooked(t *testing.T) {
	e := newEnv(t)
	wd := t.TempDir()
	t.Chdir(wd) // outside the checkout; the test binary is too
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	beside := filepath.Join(filepath.Dir(filepath.Dir(exe)), "samples", "plugins")
	_, _, errs := e.bare("list", "--data", e.data)
	if !strings.Contains(errs, beside) || !strings.Contains(errs, wd) || strings.Contains(errs, "(../samples/plugins)") {
		t.Errorf("list without a plugin folder: stderr %q does not name %s and %s", errs, beside, wd)
	}
}
