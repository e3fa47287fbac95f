package discovery

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDesktopFileIDInSubfolder: a desktop file ID names a file beneath
// a subfolder of an applications folder with "-" for "/" (the Desktop
// Entry spec: kde4/okular.desktop is kde4-okular.desktop). Detection
// joined the ID to each folder only, so software installed that way was
// reported not installed.
func TestDesktopFileIDInSubfolder(t *testing.T) {
	dir := t.TempDir()
	for _, rel := range []string{"kde4/okular.desktop", "a/b-c/d.desktop", "x-y.desktop"} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("[Desktop Entry]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for id, want := range map[string]string{
		"kde4-okular.desktop": "kde4/okular.desktop",
		"a-b-c-d.desktop":     "a/b-c/d.desktop",
		"x-y.desktop":         "x-y.desktop",
	} {
		det := Detect(&Software{Name: "s", Detection: &Detection{DesktopFile: id}}, []string{dir})
		if !det.Installed || det.DesktopFile != filepath.Join(dir, filepath.FromSlash(want)) {
			t.Errorf("%s: installed %v at %q (%s), want %s", id, det.Installed, det.DesktopFile, det.Reason, want)
		}
	}
	if det := Detect(&Software{Name: "s", Detection: &Detection{DesktopFile: "kde4-none.desktop"}}, []string{dir}); det.Installed {
		t.Errorf("kde4-none.desktop found at %q", det.DesktopFile)
	}
}
