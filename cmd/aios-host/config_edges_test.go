package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigPathErrorsNameSetting: a path of the configuration that
// cannot be used (data or spaces under a regular file, audit.path a
// folder) failed with the path alone ("audit: open /x: is a directory"),
// not saying which setting, line or flag chose it.
func TestConfigPathErrorsNameSetting(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		body string
		args []string
		want string
	}{
		{"plugins: []\ndata: " + file + "\n", []string{"space", "spaces"}, ":2: data: is a file, not a folder"},
		{"plugins: []\ndata: " + dir + "\nspaces: " + file + "/s\n", []string{"space", "spaces"}, ":3: spaces: space: "},
		{"plugins: []\ndata: " + dir + "\naudit:\n  path: " + dir + "\n", []string{"call", "analyze-complexity", `{"source":"x"}`}, ":4: audit.path: audit: "},
		{"plugins: []\n", []string{"--data", file, "space", "spaces"}, "aios-host: --data " + file + ": is a file, not a folder"},
	} {
		cfg := writeConfig(t, tc.body)
		code, stderr := runWith(t, strings.NewReader(""), io.Discard, append([]string{"--config", cfg}, tc.args...)...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q %v: exit %d, stderr %q; want %q", tc.body, tc.args, code, stderr, tc.want)
		}
	}
}

// TestFlagPathsExpandHome: --data=~/x, --plugins=~/p and
// --socket=~/s.sock (the shell expands no "~" after "=") were taken
// literally, making a folder named "~" in the working directory, while the
// configuration file's "~/" is the home folder.
func TestFlagPathsExpandHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	c := &cli{data: "~/state", plugins: stringList{"~/plugins"}}
	cfg, err := c.config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Data != filepath.Join(home, "state") || cfg.Plugins[0] != filepath.Join(home, "plugins") {
		t.Errorf("data %q, plugins %q: want them in %s", cfg.Data, cfg.Plugins, home)
	}
	if got := socketPath(cfg, "~/h.sock"); got != filepath.Join(home, "h.sock") {
		t.Errorf("socket %q", got)
	}
}
