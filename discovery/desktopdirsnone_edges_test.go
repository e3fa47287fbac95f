package discovery

import (
	"strings"
	"testing"
)

// TestDesktopFileNoDesktopDirsSaysSo: with no desktop folder to look in
// (discovery.desktop_dirs: [], or neither default folder exists, as in a
// container), software detected by its desktop_file counts as not
// installed, and the reason — in aios/registry.info's software_reason and
// each call's Unavailable — said "google-chrome.desktop not found in "
// and stopped. It says there is no desktop folder now, and which setting.
func TestDesktopFileNoDesktopDirsSaysSo(t *testing.T) {
	sw := &Software{Name: "Google Chrome", Detection: &Detection{DesktopFile: "google-chrome.desktop"}}
	for _, dirs := range [][]string{nil, {}} {
		det := Detect(sw, dirs)
		if det.Installed || !strings.Contains(det.Reason, "google-chrome.desktop") || !strings.Contains(det.Reason, "discovery.desktop_dirs") ||
			strings.HasSuffix(det.Reason, "in ") {
			t.Errorf("dirs %q: installed %v, reason %q: want not installed, naming the file and discovery.desktop_dirs", dirs, det.Installed, det.Reason)
		}
	}
	det := Detect(sw, []string{t.TempDir()})
	if det.Installed || !strings.Contains(det.Reason, "not found in ") {
		t.Errorf("with a folder: installed %v, reason %q", det.Installed, det.Reason)
	}
}
