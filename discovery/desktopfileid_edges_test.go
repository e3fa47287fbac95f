package discovery

import (
	"strings"
	"testing"
)

// TestDesktopFileIDIsAFileName: detection.desktop_file is a desktop file
// id, a file name joined to each desktop folder. ".desktop" alone (no
// name) and ..\x.desktop (on Windows a path out of the folder) passed
// the card check; a NUL in it too. Each is refused now, naming the field.
func TestDesktopFileIDIsAFileName(t *testing.T) {
	card := func(id string) []byte {
		return []byte(`{"adapter": {"id": "org.example.a", "name": "A", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "endpoints": {"rpc": "unix:///run/a.sock"},
  "requirements": {"software": {"name": "A", "detection": {"desktop_file": ` + id + `}}}}`)
	}
	for _, ok := range []string{`"google-chrome.desktop"`, `"org.gnome.Nautilus.desktop"`, `"浏览器.desktop"`} {
		if _, err := ParseCard(card(ok), "plugins/a/adapter.json"); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{`".desktop"`, `"..\\x.desktop"`, `"a\\b.desktop"`, `"a\u0000.desktop"`, `"../x.desktop"`, `"x.desktop.bak"`} {
		_, err := ParseCard(card(bad), "plugins/a/adapter.json")
		if err == nil || !strings.Contains(err.Error(), "plugins/a/adapter.json") ||
			!strings.Contains(err.Error(), "requirements.software.detection.desktop_file") {
			t.Errorf("%s: err = %v, want a refusal naming the card and the field", bad, err)
		}
	}
}
