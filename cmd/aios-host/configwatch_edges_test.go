package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestConfigEditWhileRunningSaysRestart: `aios-host run` reads its
// --config file once, at start. An operator who edited it while the host
// ran (a grant, a rate limit) was told nothing: the change silently did
// not take effect, and an edit that would not even load was found only
// at the next restart, which then failed. The host now notices a change
// of the file's content (written in place or renamed over it, as editors
// do) and logs that it keeps the configuration it started with until a
// restart, or, for a file that would not load, the error (file, line,
// key, of the file or of a section another part of run decodes); a file
// removed is said to be gone. A touch logs nothing.
func TestConfigEditWhileRunningSaysRestart(t *testing.T) {
	old := configPollInterval
	configPollInterval = 20 * time.Millisecond
	t.Cleanup(func() { configPollInterval = old })
	e := newEnv(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "host.yaml")
	write := func(body string) {
		t.Helper()
		// As editors save: a new file renamed over the old one.
		tmp := cfgPath + ".tmp"
		if err := os.WriteFile(tmp, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, cfgPath); err != nil {
			t.Fatal(err)
		}
	}
	write("limits:\n  max_call_depth: 8\n")
	r := e.startRun("aios-host serving", "--config", cfgPath, "--socket", filepath.Join(dir, "h.sock"))
	waitLog := func(what string, n int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for strings.Count(r.stderr.String(), what) < n {
			if time.Now().After(deadline) {
				t.Fatalf("no %d× %q in the log after 20 s:\n%s", n, what, r.stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	// A touch changes no content: nothing is said.
	now := time.Now().Add(time.Minute)
	if err := os.Chtimes(cfgPath, now, now); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * configPollInterval) // polls that see only new times
	write("limits:\n  max_call_depth: 4\n")
	waitLog("configuration file changed", 1)
	if !strings.Contains(r.stderr.String(), "restart") || !strings.Contains(r.stderr.String(), cfgPath) {
		t.Errorf("the notice does not name the file and say a restart applies it:\n%s", r.stderr.String())
	}

	write("limits:\n  max_call_dept: 4\n")
	waitLog("does not load", 1)
	if !strings.Contains(r.stderr.String(), `max_call_dept: unknown key`) || !strings.Contains(r.stderr.String(), "host.yaml:2") {
		t.Errorf("the refusal does not name the line and key:\n%s", r.stderr.String())
	}

	// A section that run's other parts decode is checked too.
	write("runtimes:\n  wasm:\n    compile_timeout: -1s\n")
	waitLog("does not load", 2)
	if !strings.Contains(r.stderr.String(), "host.yaml:3: runtimes.wasm.compile_timeout") {
		t.Errorf("the refusal of a runtimes.wasm value does not name its line and key:\n%s", r.stderr.String())
	}

	if err := os.Remove(cfgPath); err != nil {
		t.Fatal(err)
	}
	waitLog("configuration file is gone", 1)

	// Written in place (truncated, then written) once more.
	if err := os.WriteFile(cfgPath, []byte("limits:\n  max_call_depth: 5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitLog("configuration file changed", 2)
	if n := strings.Count(r.stderr.String(), "configuration file changed"); n != 2 {
		t.Errorf("%d change notices, want 2 (a touch is no change):\n%s", n, r.stderr.String())
	}
	r.stop()
}

// TestConfigFromPipeNotWatched: a --config that is a pipe
// (`--config <(sops -d host.yaml)`) is read once at start; the watch of
// the file (TestConfigEditWhileRunningSaysRestart) took the pipe, no
// regular file, for a file gone and warned that a restart would fail.
func TestConfigFromPipeNotWatched(t *testing.T) {
	old := configPollInterval
	configPollInterval = 10 * time.Millisecond
	t.Cleanup(func() { configPollInterval = old })
	e := newEnv(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	if _, err := w.WriteString("limits:\n  max_call_depth: 4\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	path := "/dev/fd/" + strconv.Itoa(int(r.Fd()))
	if _, err := os.Stat(path); err != nil {
		t.Skip("no /dev/fd:", err)
	}
	h := e.startRun("aios-host serving", "--config", path, "--socket", filepath.Join(t.TempDir(), "h.sock"))
	time.Sleep(30 * configPollInterval)
	if s := h.stderr.String(); strings.Contains(s, "configuration file") {
		t.Errorf("a pipe given as --config was looked at again:\n%s", s)
	}
	h.stop()
}
