package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
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

// A mistake in mcp.servers was found only after every plugin had loaded,
// and newHost's error paths closed the host but not its loaders: the
// python workers' control-group folders stayed behind (and the JS bundler,
// the wasm loaders' watchdogs). mcp.servers is now read before anything
// loads, and every error path closes the loaders.
func TestNewHostFailureClosesAll(t *testing.T) {
	if len(ownCgroupFolders(t)) > 0 {
		t.Skip("an earlier test of this process left its control-group folders")
	}
	e := newEnv(t)
	if err := os.WriteFile(filepath.Join(e.plugins, "words.py"), []byte("from aios_sdk import tool\n@tool(name='py-words', parameters={'type': 'object'})\ndef words(params):\n    return {'n': 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "aios.yaml")
	if err := os.WriteFile(cfg, []byte("mcp:\n  servers:\n    x:\n      transport: stdio\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.run("", "list", "--config", cfg, "--log-level", "debug")
	if code == exitOK || !strings.Contains(errs, `aios.yaml:4: mcp.servers.x.transport: unknown key "transport"`) {
		t.Fatalf("list with a bad mcp.servers: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if strings.Contains(errs, "py-words") || strings.Contains(errs, "words.py") {
		t.Errorf("the plugins were loaded before the config mistake was reported: %s", errs)
	}
	if left := ownCgroupFolders(t); len(left) > 0 {
		t.Fatalf("a failed start left the python runtime's control-group folders: %v", left)
	}
}

// closeLoaders, on newHost's error paths and in closeHost, closes every
// loader loaderTable makes: each refuses a load afterwards, but for the
// python runtime, whose Close waits for the workers and removes their
// folders and which may load again (python.Runtime.Close;
// TestNewHostFailureClosesAll checks its folders).
func TestCloseLoadersClosesEach(t *testing.T) {
	cfg := config.Default()
	cfg.Data = t.TempDir()
	ls, err := loaderTable(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := closeLoaders(ls); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		".wasm": "\x00asm\x01\x00\x00\x00", // an empty core module
		".js":   "aios.registerTool({name: 'x'}, (p) => p)\n",
		".ts":   "aios.registerTool({name: 'x'}, (p: any) => p)\n",
	}
	for _, l := range ls {
		ext := l.Extensions()[0]
		if ext == ".py" {
			continue
		}
		path := filepath.Join(t.TempDir(), "x"+ext)
		if err := os.WriteFile(path, []byte(files[ext]), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := l.Load(context.Background(), abi.Source{Path: path})
		if err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("%s loader after closeLoaders: Load gave %v, want a closed error", ext, err)
		}
	}
}
