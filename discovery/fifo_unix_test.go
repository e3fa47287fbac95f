//go:build unix

package discovery

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
)

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// Item 1: FIFOs and devices in a plugin folder are skipped with a warning
// naming them; nothing blocks on them, at start, on a hot reload, or on
// Close. A symlink to a regular file loads.
func TestNonRegularFilesDoNotHang(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	logs := &testutil.SyncBuffer{}
	outside := t.TempDir()
	writeFake(t, filepath.Join(outside, "real.fake"), fakeSpec{ID: "org.test.linked", Version: "1.0.0", Tools: []string{"linked"}})
	var plugins string
	prepare := func(dir string) {
		plugins = dir
		mkfifo(t, filepath.Join(dir, "fifo.fake"))
		symlink(t, "/dev/zero", filepath.Join(dir, "zero.fake"))
		symlink(t, filepath.Join(outside, "real.fake"), filepath.Join(dir, "link.fake"))
		writeFake(t, filepath.Join(dir, "ok.fake"), fakeSpec{ID: "org.test.ok", Version: "1.0.0", Tools: []string{"ok"}})
		// A folder with a FIFO beside its one real artifact.
		mkfifo(t, filepath.Join(dir, "sub", "a.fake"))
		writeFake(t, filepath.Join(dir, "sub", "b.fake"), fakeSpec{ID: "org.test.sub", Version: "1.0.0", Tools: []string{"sub"}})
		// A card naming a FIFO as its artifact, and one naming /dev/zero.
		mkfifo(t, filepath.Join(dir, "card", "tool.fake"))
		writeFile(t, filepath.Join(dir, "card", "adapter.json"), `{"adapter": {"id": "org.test.card", "name": "C", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`)
		writeFile(t, filepath.Join(dir, "zcard", "adapter.json"), `{"adapter": {"id": "org.test.zcard", "name": "Z", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "artifact": {"path": "tool.fake"}}`)
		symlink(t, "/dev/zero", filepath.Join(dir, "zcard", "tool.fake"))
	}
	started := make(chan *testEnv, 1)
	go func() { started <- newEnvWith(t, "", prepare, withLogs(logs)) }()
	var env *testEnv
	select {
	case env = <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("discovery's start hangs on a FIFO or a device in the plugin folder")
	}
	for _, tool := range []string{"ok", "linked", "sub"} {
		if _, err := env.call(tool, 1); err != nil {
			t.Errorf("%s: %v", tool, err)
		}
	}
	for _, f := range []string{"fifo.fake", "zero.fake", filepath.Join("sub", "a.fake")} {
		if n := logLines(logs, "level=WARN", "not a regular file", "="+filepath.Join(plugins, f)); n != 1 {
			t.Errorf("%s: warned %d times, want once:\n%s", f, n, logs.String())
		}
	}
	errs := env.d.Errors()
	if e := errs[filepath.Join(plugins, "card")]; !strings.Contains(e, "FIFO") || !strings.Contains(e, "tool.fake") {
		t.Errorf("card naming a FIFO: %q", e)
	}
	if e := errs[filepath.Join(plugins, "zcard")]; !strings.Contains(e, "device") || !strings.Contains(e, "tool.fake") {
		t.Errorf("card naming /dev/zero: %q", e)
	}
	if len(errs) != 2 {
		t.Errorf("errors: %v", errs)
	}
	// Refreshing does not warn again.
	if _, err := env.d.Refresh(t.Context(), "local"); err != nil {
		t.Fatal(err)
	}
	if n := logLines(logs, "level=WARN", "="+filepath.Join(plugins, "fifo.fake")); n != 1 {
		t.Errorf("fifo.fake warned %d times after a refresh", n)
	}

	// Dropped while the host runs: the FIFO does not hold the reloads.
	mkfifo(t, filepath.Join(plugins, "hot.fake"))
	time.Sleep(100 * time.Millisecond)
	writeFake(t, filepath.Join(plugins, "after.fake"), fakeSpec{ID: "org.test.after", Version: "1.0.0", Tools: []string{"after"}})
	mkfifo(t, filepath.Join(plugins, "hot2.fake"))
	testutil.Eventually(t, "a file dropped after FIFOs loads", func() bool { _, err := env.call("after", 1); return err == nil })
	testutil.Eventually(t, "hot FIFO warned about", func() bool {
		return logLines(logs, "level=WARN", "="+filepath.Join(plugins, "hot2.fake")) == 1
	})
	closed := make(chan error, 1)
	go func() { closed <- env.d.Close() }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs")
	}
}

// TestDpkgStatusFIFO: a dpkg status that is a FIFO is refused with an
// error naming it, never opened (the open would block).
func TestDpkgStatusFIFO(t *testing.T) {
	root := t.TempDir()
	mkfifo(t, filepath.Join(root, dpkgDir, "status"))
	done := make(chan error, 1)
	go func() {
		_, _, _, err := dpkgAt(root).VersionOf("/usr/bin/x")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("FIFO status: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("VersionOf hung on a FIFO status file")
	}
}
