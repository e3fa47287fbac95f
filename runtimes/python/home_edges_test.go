package python

import (
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestConfigHomePaths: the README says a leading "~/" in a path setting is
// the home folder (no shell expands it in a config file). The interpreter
// ("~/venv/bin/python3") and sdk_path were taken literally, so a runtime
// whose interpreter is in a virtual environment under the home folder
// failed to start with "~/venv/bin/python3: no such file". Both are
// expanded now; "python3" is still looked up in PATH.
func TestConfigHomePaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	cfg, err := config.Parse([]byte("runtimes:\n  python:\n    interpreter: ~/venv/bin/python3\n    sdk_path: ~/sdk\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ConfigFrom(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "venv/bin/python3"); c.Interpreter != want {
		t.Errorf("interpreter %q, want %q", c.Interpreter, want)
	}
	if want := filepath.Join(home, "sdk"); c.SDKPath != want {
		t.Errorf("sdk_path %q, want %q", c.SDKPath, want)
	}
	c, err = ConfigFrom(nil)
	if err != nil || c.Interpreter != "python3" {
		t.Errorf("default interpreter %q (%v)", c.Interpreter, err)
	}
}
