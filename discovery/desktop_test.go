package discovery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const chromeDesktop = `# installed by the package
[Desktop Entry]
Version=1.0
Name=Google Chrome
Name[zh_CN]=谷歌浏览器
GenericName=Web Browser
Comment=Access the Internet\sfast
Exec=/usr/bin/google-chrome-stable %U
Terminal=false
Icon=google-chrome
Type=Application
Categories=Network;WebBrowser;
MimeType=text/html;x-scheme-handler/http;
Keywords=web\;browser;internet

[Desktop Action new-window]
Name=New Window
Exec=/usr/bin/google-chrome-stable
`

func TestParseDesktop(t *testing.T) {
	e, err := ParseDesktop([]byte(chromeDesktop), "google-chrome.desktop")
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "Google Chrome" || e.Type != "Application" || e.Comment != "Access the Internet fast" {
		t.Fatalf("entry = %+v", e)
	}
	if e.Keys["Name[zh_CN]"] != "谷歌浏览器" {
		t.Fatalf("localized name = %q", e.Keys["Name[zh_CN]"])
	}
	if strings.Join(e.Categories, ",") != "Network,WebBrowser" || strings.Join(e.Keywords, ",") != "web;browser,internet" {
		t.Fatalf("lists = %q %q", e.Categories, e.Keywords)
	}
	if e.Program() != "/usr/bin/google-chrome-stable" {
		t.Fatalf("program = %q", e.Program())
	}
	if e.Keys["Exec"] != "/usr/bin/google-chrome-stable %U" {
		t.Fatal("the action group must not override the main group")
	}
}

func TestParseDesktopRejects(t *testing.T) {
	cases := []struct{ name, doc, want string }{
		{"empty", "", "no [Desktop Entry]"},
		{"key-before-group", "Name=x\n[Desktop Entry]\n", ":1: key before any group"},
		{"wrong-first-group", "[Other]\nName=x\n", "first group must be [Desktop Entry]"},
		{"no-type", "[Desktop Entry]\nName=x\nExec=x\n", "Type is missing"},
		{"no-name", "[Desktop Entry]\nType=Application\nExec=x\n", "Name is missing"},
		{"no-exec", "[Desktop Entry]\nType=Application\nName=x\n", "needs Exec"},
		{"dup-key", "[Desktop Entry]\nType=Application\nType=Link\n", ":3: key \"Type\" appears twice"},
		{"dup-group", "[Desktop Entry]\nType=Link\nName=x\n[A]\n[A]\n", "appears twice"},
		{"bad-line", "[Desktop Entry]\njunk\n", ":2: line is neither"},
		{"bad-key", "[Desktop Entry]\nNa me=x\n", "invalid key"},
		{"bad-locale", "[Desktop Entry]\nName[=x\n", "invalid key"},
		{"bad-header", "[Desktop Entry\n", "lacks ']'"},
		{"bad-bool", "[Desktop Entry]\nType=Application\nName=x\nExec=x\nTerminal=yes\n", "not a boolean"},
		{"lone-backslash", "[Desktop Entry]\nName=x\\\n", "lone backslash"},
		{"bad-utf8", "[Desktop Entry]\nName=\xff\n", "UTF-8"},
		{"huge", "[Desktop Entry]\nName=" + strings.Repeat("x", MaxDesktopBytes), "larger than the limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseDesktop([]byte(c.doc), "app.desktop")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "app.desktop") {
				t.Fatalf("error %v, want one naming the file and %q", err, c.want)
			}
		})
	}
	// D-Bus activatable applications need no Exec; Links need none either.
	for _, ok := range []string{"[Desktop Entry]\nType=Application\nName=x\nDBusActivatable=true\n", "[Desktop Entry]\nType=Link\nName=x\nURL=https://x\n"} {
		if _, err := ParseDesktop([]byte(ok), "ok.desktop"); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	apps := filepath.Join(dir, "applications")
	_ = os.MkdirAll(apps, 0o755)
	exe := filepath.Join(dir, "bin-app")
	_ = os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	plain := filepath.Join(dir, "not-exec")
	_ = os.WriteFile(plain, []byte("x"), 0o644)
	_ = os.WriteFile(filepath.Join(apps, "app.desktop"), []byte("[Desktop Entry]\n"), 0o644)
	cases := []struct {
		name string
		det  *Detection
		want bool
	}{
		{"none", nil, true},
		{"desktop+exe", &Detection{DesktopFile: "app.desktop", Executable: exe}, true},
		{"missing-desktop", &Detection{DesktopFile: "other.desktop"}, false},
		{"missing-exe", &Detection{Executable: filepath.Join(dir, "nope")}, false},
		{"not-executable", &Detection{Executable: plain}, false},
	}
	for _, c := range cases {
		got := Detect(&Software{Name: "x", Detection: c.det}, []string{filepath.Join(dir, "nowhere"), apps})
		if got.Installed != c.want {
			t.Errorf("%s: installed=%v (%s), want %v", c.name, got.Installed, got.Reason, c.want)
		}
		if !got.Installed && got.Reason == "" {
			t.Errorf("%s: no reason given", c.name)
		}
	}
	// The test binary itself is running.
	self, _ := os.Executable()
	if got := Detect(&Software{Name: "self", Detection: &Detection{Executable: self}}, nil); !got.Running {
		t.Errorf("the test process %s is not detected as running", self)
	}
}

func FuzzParseDesktop(f *testing.F) {
	f.Add([]byte(chromeDesktop))
	f.Add([]byte("[Desktop Entry]\nType=Application\nName=x\nExec=x\n"))
	f.Add([]byte("[Desktop Entry]\nName[de=x\\"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseDesktop(data, "fuzz.desktop")
		if err != nil {
			return
		}
		if e.Type == "" || e.Name == "" {
			t.Fatalf("accepted an entry without Type or Name: %+v", e)
		}
	})
}
