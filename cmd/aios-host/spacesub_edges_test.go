package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpaceUnknownSubcommandSaysWhatWasMeant: an unknown space
// sub-command was refused with the list of sub-commands only, where an
// unknown audit one (audit verfy) is answered with the one meant: a typo
// (space lsit), the shell's name (space ls) get the sub-command meant, and
// rm says that nothing removes objects and which file to remove by hand
// (README "Space storage"), the object's own when SPACE and ID are given.
// Each is still a usage error that leaves the object in place.
func TestSpaceUnknownSubcommandSaysWhatWasMeant(t *testing.T) {
	e := newEnv(t)
	file := filepath.Join(t.TempDir(), "o.txt")
	if err := os.WriteFile(file, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "space", "put", "docs", file)
	if code != exitOK {
		t.Fatalf("space put: %d %s", code, errs)
	}
	id := strings.TrimSpace(out)
	hex := strings.TrimPrefix(id, "sha256:")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lsit", "docs"}, `unknown space sub-command "lsit" (did you mean "list"?)`},
		{[]string{"ls", "docs"}, `unknown space sub-command "ls" (did you mean "list"?)`},
		{[]string{"cat", "docs", id}, `unknown space sub-command "cat" (did you mean "get"?)`},
		{[]string{"gte", "docs", id}, `unknown space sub-command "gte" (did you mean "get"?)`},
		{[]string{"rm", "docs", id}, `unknown space sub-command "rm": nothing removes objects from a space; remove one by hand: ` +
			filepath.Join(e.data, "spaces", "docs", hex[:2], hex[2:])},
		{[]string{"delete", "x"}, `unknown space sub-command "delete": nothing removes objects from a space; remove one by hand: ` +
			filepath.Join(e.data, "spaces", "SPACE", "xx", "…")},
	} {
		code, out, errs := e.run("", append([]string{"space"}, tc.args...)...)
		if code != exitUsage || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("space %q: exit %d, stdout %q, stderr %.300q; want exit 2 and %q", tc.args, code, out, errs, tc.want)
		}
	}
	// Something far from every sub-command gets no guess.
	if _, _, errs := e.run("", "space", "frobnicate"); strings.Contains(errs, "did you mean") {
		t.Errorf("space frobnicate: %.200q", errs)
	}
	if code, out, _ := e.run("", "space", "get", "docs", id); code != exitOK || out != "hello" {
		t.Errorf("the object after space rm: %d %q", code, out)
	}
}

// TestSpaceRmOfObjectNotInThatSpace: space rm SPACE ID for an object that
// SPACE does not hold named a file to remove by hand that does not exist
// (DATA/spaces/SPACE/xx/…), as if it were the object's; it now says that
// SPACE holds no such object and which spaces hold it, as space get does.
func TestSpaceRmOfObjectNotInThatSpace(t *testing.T) {
	e := newEnv(t)
	file := filepath.Join(t.TempDir(), "o.txt")
	if err := os.WriteFile(file, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "space", "put", "docs", file)
	if code != exitOK {
		t.Fatalf("space put: %d %s", code, errs)
	}
	id := strings.TrimSpace(out)
	hex := strings.TrimPrefix(id, "sha256:")
	code, out, errs = e.run("", "space", "rm", "source", id)
	wrong := filepath.Join(e.data, "spaces", "source", hex[:2], hex[2:])
	want := `space "source" holds no object ` + id + ` (it is in space "docs")`
	if code != exitUsage || out != "" || strings.Contains(errs, wrong) || !strings.Contains(errs, want) {
		t.Errorf("space rm source ID: exit %d, stdout %q, stderr %.400q; want exit 2 and %q, not the path %s", code, out, errs, want, wrong)
	}
	// An id no space holds.
	none := "sha256:" + strings.Repeat("0", 64)
	_, _, errs = e.run("", "space", "rm", "docs", none)
	if want := `space "docs" holds no object ` + none + ` (no space holds it)`; !strings.Contains(errs, want) {
		t.Errorf("space rm docs NONE: stderr %.400q; want %q", errs, want)
	}
}
