package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ownCgroupFolders lists the python runtime's control-group folders of
// this process (aios-host-NS-PID under each of its cgroups).
func ownCgroupFolders(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Skip("no /proc/self/cgroup")
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		base := "/sys/fs/cgroup"
		if parts[1] != "" {
			base = filepath.Join(base, strings.TrimPrefix(parts[1], "name="))
		}
		m, _ := filepath.Glob(filepath.Join(base, parts[2], fmt.Sprintf("aios-host-*-%d", os.Getpid())))
		out = append(out, m...)
	}
	return out
}

// inspect FILE.py loaded the file with the loader table and closed the
// provider, but not the python runtime (its Close has no error, so it is
// no io.Closer): its workers were not waited for and its control-group
// folders stayed behind after every inspect (closeHost closes it). It
// closes every loader now, as closeHost does.
func TestInspectPythonLeavesNoCgroup(t *testing.T) {
	if len(ownCgroupFolders(t)) > 0 {
		t.Skip("an earlier test of this process left its control-group folders")
	}
	e := newEnv(t)
	py := filepath.Join(t.TempDir(), "words.py")
	if err := os.WriteFile(py, []byte("from aios_sdk import tool\n@tool(name='py-words', parameters={'type': 'object'})\ndef words(params):\n    return {'n': 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "inspect", py)
	if code != exitOK || !strings.Contains(out, "tool py-words") {
		t.Fatalf("inspect words.py: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if left := ownCgroupFolders(t); len(left) > 0 {
		t.Fatalf("inspect left the python runtime's control-group folders: %v", left)
	}
}
