package discovery

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// TestDebVersionCompare: dpkg's ordering, epochs and revisions included.
func TestDebVersionCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"1.0", "1.0", 0},
		{"1.0", "1.00", 0},
		{"1.0", "1.0.0", -1},
		{"1.2", "1.10", -1},
		{"100.0", "99.0.1", 1},
		{"120.0.6099.109", "100.0", 1},
		{"2.3~rc1", "2.3", -1},
		{"2.3~rc1", "2.3~rc2", -1},
		{"2.3~~", "2.3~", -1},
		{"2.3", "2.3+dfsg", -1},
		{"2.3", "2.3a", -1},
		{"2.3a", "2.3+", -1}, // letters sort before other characters
		{"1:2.3-4", "2.3-4", 1},
		{"1:2.3-4", "1:2.3-4", 0},
		{"1:2.3-4", "1:2.3-10", -1},
		{"0:2.3", "2.3", 0},
		{"2:1.0", "1:9.9", 1},
		{"2.3-4", "2.3", 1},
		{"2.3-1~bpo1", "2.3-1", -1},
		{"4:7.4.7-1+deb12u1", "4:7.4.7-1", 1},
		{"115.5.0esr-1~deb12u1", "115.5.0esr-1", -1},
		{"1.0-2-3", "1.0-2-2", 1}, // upstream 1.0-2, revision 3
	} {
		got, err := CompareDebVersions(tc.a, tc.b)
		if err != nil {
			t.Errorf("%s vs %s: %v", tc.a, tc.b, err)
			continue
		}
		if got != tc.want {
			t.Errorf("compare(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if back, _ := CompareDebVersions(tc.b, tc.a); back != -tc.want {
			t.Errorf("compare(%s, %s) = %d, not the opposite of %d", tc.b, tc.a, back, tc.want)
		}
	}
}

func TestParseDebVersionErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "empty version",
		"latest":                           "must start with a digit",
		":1.0":                             "empty epoch",
		"x:1.0":                            "epoch \"x\" is not a number",
		"99999999999999999999:1":           "too large",
		"1.0-":                             "empty revision",
		"-1":                               "empty upstream",
		"1.0 beta":                         "holds ' '",
		"1.0-a_b":                          "revision",
		"1:":                               "empty upstream",
		strings.Repeat("1", 300):           "longer than",
		"1.0:2":                            "epoch \"1.0\" is not a number",
		"1.0\x00":                          "holds",
		"v":                                "must start with a digit",
		"1.0-rc1-\xff":                     "revision",
		"2.3" + strings.Repeat("~", 300):   "longer than",
		"1:" + strings.Repeat(".", 2) + "": "must start with a digit",
	} {
		_, err := ParseDebVersion(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDebVersion(%q) = %v, want an error with %q", in, err, want)
		}
	}
	if v, err := ParseDebVersion("1:2.3-4"); err != nil || v.Epoch != 1 || !v.HasEpoch || v.Upstream != "2.3" || v.Revision != "4" || v.String() != "1:2.3-4" {
		t.Fatalf("ParseDebVersion(1:2.3-4) = %+v, %v", v, err)
	}
}

// TestVersionAtLeast: min_version against an installed version: upstream
// parts, revisions and +dfsg left out, ~ before the release, the
// installed epoch ignored unless min_version names one.
func TestVersionAtLeast(t *testing.T) {
	for _, tc := range []struct {
		installed, min string
		want           bool
	}{
		{"120.0.6099.109-1", "100.0", true},
		{"99.0.1", "100.0", false},
		{"100.0", "100.0", true},
		{"100.0-1", "100", true},
		{"100.0~rc1-1", "100.0", false},
		{"100.0~rc1-1", "100.0~rc1", true},
		{"2.3+dfsg-4", "2.3", true},
		{"2.3+dfsg-4", "2.3.1", false},
		{"2.3~rc1+dfsg-2", "2.3", false},
		{"1:2.3-4", "2.3", true},
		{"1:2.3-4", "2.4", false}, // the epoch does not make 2.3 newer than 2.4
		{"4:7.4.7-1+deb12u1", "8.0", false},
		{"4:7.4.7-1+deb12u1", "7.4", true},
		{"4:7.4.7-1+deb12u1", "3:9.0", true}, // min_version's own epoch counts
		{"1:2.3-4", "2:1.0", false},
		{"115.5.0esr-1~deb12u1", "115.0", true},
		{"115.5.0esr-1~deb12u1", "v115.5", true},
		{"3.0+really2.9-1", "3.0", false}, // 3.0+really2.9 is 2.9
		{"3.0+really2.9-1", "2.9", true},
	} {
		got, err := VersionAtLeast(tc.installed, tc.min)
		if err != nil {
			t.Errorf("%s >= %s: %v", tc.installed, tc.min, err)
			continue
		}
		if got != tc.want {
			t.Errorf("VersionAtLeast(%s, %s) = %v, want %v", tc.installed, tc.min, got, tc.want)
		}
	}
	if _, err := VersionAtLeast("1.0", "latest"); err == nil || !strings.Contains(err.Error(), "min_version") {
		t.Fatalf("bad min_version: %v", err)
	}
	if _, err := VersionAtLeast("garbage", "1.0"); err == nil || !strings.Contains(err.Error(), "installed version") {
		t.Fatalf("bad installed version: %v", err)
	}
}

// FuzzDebVersion: parsing never panics; a parsed version prints back to
// itself and orders consistently against another.
func FuzzDebVersion(f *testing.F) {
	for _, s := range []string{"1:2.3-4", "2.3~rc1+dfsg-2", "100.0", "4:7.4.7-1+deb12u1", "0", "1.0-2-3", "1:2:3-4"} {
		f.Add(s, "100.0")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		va, err := ParseDebVersion(a)
		if err != nil {
			return
		}
		if va.Compare(va) != 0 {
			t.Fatalf("%q is not equal to itself", a)
		}
		again, err := ParseDebVersion(va.String())
		if err != nil || again.Compare(va) != 0 {
			t.Fatalf("%q printed as %q: %v", a, va.String(), err)
		}
		vb, err := ParseDebVersion(b)
		if err != nil {
			return
		}
		if x, y := va.Compare(vb), vb.Compare(va); x != -y || x < -1 || x > 1 {
			t.Fatalf("compare(%q, %q) = %d but compare(%q, %q) = %d", a, b, x, b, a, y)
		}
		_, _ = VersionAtLeast(a, b)
	})
}

// FuzzDpkgStatus: the status parser never panics, and what it returns
// comes from the input.
func FuzzDpkgStatus(f *testing.F) {
	seed, err := os.ReadFile("testdata/dpkg/var/lib/dpkg/status")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte("Package: a\n continuation\n\n\nVersion: 1\n"))
	f.Add([]byte(" lead\n"))
	f.Add([]byte("no colon\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = ParseDpkgStatus(bytes.NewReader(data), "fuzz", func(st DpkgStanza) {
			if st.Package != "" && !bytes.Contains(data, []byte(st.Package)) {
				t.Fatalf("package %q is not in the input", st.Package)
			}
		})
	})
}

// TestParseDpkgStatus reads the fixture's paragraphs and refuses broken
// lines with the file and line.
func TestParseDpkgStatus(t *testing.T) {
	f, err := os.Open("testdata/dpkg/var/lib/dpkg/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []string
	if err := ParseDpkgStatus(f, "status", func(st DpkgStanza) {
		got = append(got, st.Package+"/"+st.Architecture+"="+st.Version+" ("+st.Status+")")
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"fixture-browser/amd64=1:120.0.6099.109-1 (install ok installed)",
		"fixture-office/amd64=4:7.4.7-1+deb12u1 (install ok installed)",
		"fixture-office/i386=4:7.0.0-1 (deinstall ok config-files)",
		"fixture-removed/all=2.0-1 (deinstall ok config-files)",
		"fixture-rc/all=2.3~rc1+dfsg-2 (install ok installed)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("paragraphs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for in, want := range map[string]string{
		"Package: a\nno colon here\n":                      "status:2: line is neither",
		" continuation first\n":                            "status:1: continuation line before any field",
		"Package: a\nBad Field: x\n":                       "status:2:",
		"Package: a\n" + strings.Repeat("x", 2<<20) + "\n": "status:",
	} {
		err := ParseDpkgStatus(strings.NewReader(in), "status", func(DpkgStanza) {})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDpkgStatus(%.30q) = %v, want %q", in, err, want)
		}
	}
}

// fixtureDpkg copies testdata/dpkg to a new root and gives the office
// package an architecture-qualified list name (fixture-office:amd64.list;
// kept without the colon in the repository, which Go module zips refuse).
// extra adds .list files: name → lines.
func fixtureDpkg(t *testing.T, extra map[string]string) string {
	t.Helper()
	root := t.TempDir()
	src := "testdata/dpkg"
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(root, rel)
		if fi.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if strings.HasSuffix(dst, ".list-amd64") {
			dst = strings.TrimSuffix(dst, ".list-amd64") + ":amd64.list"
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, lines := range extra {
		writeFile(t, filepath.Join(root, dpkgDir, "info", name+".list"), lines)
	}
	return root
}

// TestDpkgVersionOf finds the owner of a file in the .list files and its
// version in status; an unknown file, a removed package and a missing
// database give no version and say why.
func TestDpkgVersionOf(t *testing.T) {
	root := fixtureDpkg(t, nil)
	db := dpkgAt(root)
	for _, tc := range []struct {
		paths            []string
		pkg, ver, inNote string
	}{
		{[]string{"/opt/fixture/browser"}, "fixture-browser", "1:120.0.6099.109-1", ""},
		{[]string{"", "/usr/share/applications/fixture-browser.desktop"}, "fixture-browser", "1:120.0.6099.109-1", ""},
		{[]string{"/usr/bin/fixture-office"}, "fixture-office:amd64", "4:7.4.7-1+deb12u1", ""},
		{[]string{"/usr/bin/fixture-rc"}, "fixture-rc", "2.3~rc1+dfsg-2", ""},
		{[]string{"/usr/bin/fixture-rc-merged"}, "fixture-rc", "2.3~rc1+dfsg-2", ""}, // listed as /bin/…
		{[]string{"/usr/bin/fixture-removed"}, "fixture-removed", "", "not installed"},
		{[]string{"/usr/bin/fixture-browser-md5-only"}, "", "", "no package in"},
		{[]string{"/opt/fixture"}, "fixture-browser", "1:120.0.6099.109-1", ""}, // a folder it lists: owned too
		{[]string{"/opt/fixture/brow"}, "", "", "no package in"},
	} {
		pkg, ver, note, err := db.VersionOf(tc.paths...)
		if err != nil {
			t.Fatalf("%v: %v", tc.paths, err)
		}
		if pkg != tc.pkg || ver != tc.ver || (tc.inNote != "" && !strings.Contains(note, tc.inNote)) {
			t.Errorf("VersionOf(%q) = %q %q %q, want %q %q (note with %q)", tc.paths, pkg, ver, note, tc.pkg, tc.ver, tc.inNote)
		}
	}
	// An upgrade is seen: the status file changed.
	status := filepath.Join(root, dpkgDir, "status")
	data, _ := os.ReadFile(status)
	writeFile(t, status, strings.Replace(string(data), "Version: 2.3~rc1+dfsg-2", "Version: 2.3+dfsg-3", 1))
	if _, ver, _, _ := db.VersionOf("/usr/bin/fixture-rc"); ver != "2.3+dfsg-3" {
		t.Fatalf("after the upgrade: %q", ver)
	}
	// A broken status file is an error naming it and the line.
	writeFile(t, status, "Package: x\nthis is not a field\n")
	if _, _, _, err := db.VersionOf("/usr/bin/fixture-rc"); err == nil || !strings.Contains(err.Error(), "status:2") {
		t.Fatalf("broken status: %v", err)
	}
	// No database: no version, no error.
	_, ver, note, err := dpkgAt(t.TempDir()).VersionOf("/usr/bin/x")
	if err != nil || ver != "" || !strings.Contains(note, "no dpkg database") {
		t.Fatalf("no database: %q %q %v", ver, note, err)
	}
}

// TestDetectMinVersion: the version dpkg knows is checked against
// min_version; too old counts as not installed and says why; an unknown
// version installs as before with a note.
func TestDetectMinVersion(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "app")
	writeFile(t, exe, "#!/bin/sh\necho should not run\n")
	if err := os.Chmod(exe, 0o755); err != nil {
		t.Fatal(err)
	}
	unowned := filepath.Join(dir, "other")
	writeFile(t, unowned, "#!/bin/sh\n")
	_ = os.Chmod(unowned, 0o755)
	root := fixtureDpkg(t, map[string]string{"fixture-app": exe + "\n"})
	writeFile(t, filepath.Join(root, dpkgDir, "status"), "Package: fixture-app\nStatus: install ok installed\nVersion: 1:99.0.1-2\n")
	o := DetectOptions{dpkgRoot: root}
	sw := func(exe, min string) *Software {
		return &Software{Name: "App", MinVersion: min, Detection: &Detection{Executable: exe}}
	}

	d := DetectWith(sw(exe, "100.0"), o)
	if d.Installed || d.Running || d.Version != "1:99.0.1-2" || d.VersionOK == nil || *d.VersionOK || d.VersionSource != "dpkg:fixture-app" ||
		!strings.Contains(d.Reason, "min_version 100.0") {
		t.Fatalf("too old: %+v", d)
	}
	d = DetectWith(sw(exe, "99.0"), o)
	if !d.Installed || d.VersionOK == nil || !*d.VersionOK || d.Reason != "" {
		t.Fatalf("new enough: %+v", d)
	}
	d = DetectWith(sw(exe, ""), o)
	if !d.Installed || d.VersionOK != nil || d.Version != "1:99.0.1-2" {
		t.Fatalf("no min_version: %+v", d)
	}
	d = DetectWith(sw(unowned, "100.0"), o)
	if !d.Installed || d.Version != "" || d.VersionOK != nil || !strings.Contains(strings.Join(d.Notes, "; "), "min_version 100.0 not checked") {
		t.Fatalf("unknown version: %+v", d)
	}
	// The desktop file's owner gives the version when there is no executable.
	apps := filepath.Join(dir, "apps")
	writeFile(t, filepath.Join(apps, "app.desktop"), "[Desktop Entry]\nType=Application\nName=App\nVersion=1.5\nExec=app\n")
	writeFile(t, filepath.Join(root, dpkgDir, "info", "fixture-app.list"), filepath.Join(apps, "app.desktop")+"\n")
	d = DetectWith(&Software{Name: "App", MinVersion: "100.0", Detection: &Detection{DesktopFile: "app.desktop"}}, DetectOptions{DesktopDirs: []string{apps}, dpkgRoot: root})
	if d.Installed || d.Version != "1:99.0.1-2" {
		t.Fatalf("by desktop file: %+v (the desktop file's Version=1.5 is not the app's)", d)
	}
}

// TestVersionCommand: with RunVersion and no dpkg version, the program is
// run with --version (no shell, empty environment) and its version read;
// without RunVersion it is never run; one that hangs is killed in time.
func TestVersionCommand(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "ran")
	exe := filepath.Join(dir, "app")
	writeFile(t, exe, "#!/bin/sh\necho \"$#:$1\" > "+marker+"\nenv >> "+marker+"\necho 'Fake App 3.4.5 (build 7)'\n")
	_ = os.Chmod(exe, 0o755)
	t.Setenv("AIOS_TEST_SECRET", "leaked")
	o := DetectOptions{dpkgRoot: t.TempDir()} // no dpkg database
	sw := &Software{Name: "App", MinVersion: "3.4", Detection: &Detection{Executable: exe}}

	d := DetectWith(sw, o)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the program ran without RunVersion")
	}
	if !d.Installed || d.Version != "" {
		t.Fatalf("without RunVersion: %+v", d)
	}
	o.RunVersion = true
	d = DetectWith(sw, o)
	if !d.Installed || d.Version != "3.4.5" || d.VersionSource != "--version" || d.VersionOK == nil || !*d.VersionOK {
		t.Fatalf("with RunVersion: %+v", d)
	}
	ran, _ := os.ReadFile(marker)
	if !strings.HasPrefix(string(ran), "1:--version\n") || strings.Contains(string(ran), "AIOS_TEST_SECRET") || strings.Contains(string(ran), "HOME=") {
		t.Fatalf("arguments and environment of --version: %q", ran)
	}

	slow := filepath.Join(dir, "slow")
	writeFile(t, slow, "#!/bin/sh\nsleep 30 &\nsleep 30\n")
	_ = os.Chmod(slow, 0o755)
	start := time.Now()
	d = DetectWith(&Software{Name: "Slow", Detection: &Detection{Executable: slow}}, o)
	if took := time.Since(start); took > versionCmdTimeout+2*time.Second {
		t.Fatalf("a hanging --version took %v", took)
	}
	if !d.Installed || d.Version != "" || !strings.Contains(strings.Join(d.Notes, ";"), "did not finish") {
		t.Fatalf("hanging --version: %+v", d)
	}

	// A program others may write is never run.
	loose := filepath.Join(dir, "loose")
	writeFile(t, loose, "#!/bin/sh\necho 1.0\n")
	_ = os.Chmod(loose, 0o777)
	d = DetectWith(&Software{Name: "Loose", Detection: &Detection{Executable: loose}}, o)
	if d.Version != "" || !strings.Contains(strings.Join(d.Notes, ";"), "writable by group or others") {
		t.Fatalf("group-writable program: %+v", d)
	}
}

func TestVersionFromOutput(t *testing.T) {
	for in, want := range map[string]string{
		"Google Chrome 120.0.6099.109 \n": "120.0.6099.109",
		"Mozilla Firefox 115.5.0esr\n":    "115.5.0esr",
		"LibreOffice 7.4.7.2 40(Build:2)": "7.4.7.2",
		"tool version 2\n":                "",
		"x86_64 v1.2.3":                   "",
		"release 3.0.":                    "3.0",
		"":                                "",
	} {
		if got := VersionFromOutput([]byte(in)); got != want {
			t.Errorf("VersionFromOutput(%q) = %q, want %q", in, got, want)
		}
	}
}

// startBus starts a private session bus (dbus-daemon) for the test with
// services from servicesDir, and returns its address.
func startBus(t *testing.T, servicesDir string) string {
	t.Helper()
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		t.Skip("dbus-daemon is not installed (Debian package dbus-daemon; scripts/deps.sh installs it)")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "bus.conf")
	writeFile(t, conf, `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=`+filepath.Join(dir, "bus.sock")+`</listen>
  <servicedir>`+servicesDir+`</servicedir>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`)
	cmd := exec.Command(daemon, "--config-file="+conf, "--print-address=1", "--nofork")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case a := <-addr:
		if a == "" {
			t.Fatalf("dbus-daemon printed no address: %s", stderr.String())
		}
		return a
	case <-time.After(10 * time.Second):
		t.Fatalf("dbus-daemon did not start: %s", stderr.String())
	}
	return ""
}

// forgetBuses drops what the buses said, so the next probe asks again.
func forgetBuses() {
	busCacheMu.Lock()
	clear(busCache)
	busCacheMu.Unlock()
}

// TestDetectDBus: a name a client claims on the test's own bus is running;
// one with a .service file is activatable (installed, not running); one the
// bus does not know is absent (not installed); a bus that cannot be reached
// or does not answer leaves it unknown, in time, without failing the card.
func TestDetectDBus(t *testing.T) {
	services := t.TempDir()
	writeFile(t, filepath.Join(services, "org.aios.Test.Activatable.service"),
		"[D-BUS Service]\nName=org.aios.Test.Activatable\nExec=/nonexistent/aios-test-service\n")
	addr := startBus(t, services)
	t.Cleanup(forgetBuses)
	buses := []busAddr{{"session", addr}}
	sw := func(name string) *Software {
		return &Software{Name: "App", Detection: &Detection{DBusService: &name}}
	}
	o := DetectOptions{buses: buses, dpkgRoot: t.TempDir()}

	conn, err := dbus.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Hello(); err != nil {
		t.Fatal(err)
	}
	if r, err := conn.RequestName("org.aios.Test.Running", dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("RequestName: %v %v", r, err)
	}
	forgetBuses()
	if d := DetectWith(sw("org.aios.Test.Running"), o); !d.Installed || !d.Running || d.DBus != DBusRunning {
		t.Fatalf("claimed name: %+v", d)
	}
	if d := DetectWith(sw("org.aios.Test.Activatable"), o); !d.Installed || d.Running || d.DBus != DBusActivatable {
		t.Fatalf("activatable name: %+v", d)
	}
	if d := DetectWith(sw("org.aios.Test.Nowhere"), o); d.Installed || d.DBus != DBusAbsent || !strings.Contains(d.Reason, "org.aios.Test.Nowhere") {
		t.Fatalf("unknown name: %+v", d)
	}
	// Released: within the cache's lifetime (dbusTTL) it still counts as
	// running; once the bus is asked again, it is absent.
	if _, err := conn.ReleaseName("org.aios.Test.Running"); err != nil {
		t.Fatal(err)
	}
	if d := DetectWith(sw("org.aios.Test.Running"), o); !d.Running {
		t.Fatalf("released name, answer cached: %+v", d)
	}
	forgetBuses()
	if d := DetectWith(sw("org.aios.Test.Running"), o); d.Installed || d.DBus != DBusAbsent {
		t.Fatalf("released name: %+v", d)
	}

	// A second bus that cannot be reached: the name on the first still
	// counts; a name on neither is unknown, not absent.
	o.buses = append(buses, busAddr{"system", "unix:path=" + filepath.Join(t.TempDir(), "none.sock")})
	if d := DetectWith(sw("org.aios.Test.Activatable"), o); !d.Installed || d.DBus != DBusActivatable {
		t.Fatalf("activatable, system bus unreachable: %+v", d)
	}
	if d := DetectWith(sw("org.aios.Test.Nowhere"), o); !d.Installed || d.DBus != DBusUnknown || !strings.Contains(strings.Join(d.Notes, ";"), "system bus") {
		t.Fatalf("absent, system bus unreachable: %+v", d)
	}
}

// TestDetectDBusUnreachable: no session bus address, a socket nobody
// listens on, and one that accepts but never answers: unknown, installed,
// within the timeout.
func TestDetectDBusUnreachable(t *testing.T) {
	t.Cleanup(forgetBuses)
	dir := t.TempDir()
	mute := filepath.Join(dir, "mute.sock")
	ln, err := net.Listen("unix", mute)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	name := "org.aios.Test.App"
	sw := &Software{Name: "App", Detection: &Detection{DBusService: &name}}
	for _, buses := range [][]busAddr{
		{{"session", ""}},
		{{"session", "unix:path=" + filepath.Join(dir, "none.sock")}},
		{{"session", "unix:path=" + mute}},
		{{"session", "nonsense"}},
	} {
		start := time.Now()
		d := DetectWith(sw, DetectOptions{buses: buses, dpkgRoot: dir})
		if took := time.Since(start); took > dbusTimeout+time.Second {
			t.Fatalf("%v: took %v", buses, took)
		}
		if !d.Installed || d.Running || d.DBus != DBusUnknown || len(d.Notes) == 0 {
			t.Fatalf("%v: %+v", buses, d)
		}
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path="+filepath.Join(dir, "none.sock"))
	if d := Detect(sw, nil); !d.Installed || d.DBus != DBusUnknown || !strings.Contains(strings.Join(d.Notes, ";"), "DBUS_SESSION_BUS_ADDRESS is not set") {
		t.Fatalf("default buses: %+v", d)
	}
}
