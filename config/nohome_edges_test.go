package config

import (
	"os/user"
	"path/filepath"
	"runtime"
	"testing"
)

// TestDataDirWithoutHOMEIsTheUsersHome: with HOME unset (a systemd service
// without User=, `env -i`, some CI runners) and neither AIOS_DATA nor
// XDG_STATE_HOME, the data folder was ./.aios-host in the working
// directory, which README does not say: a `space put` in one folder and a
// `call` in another used different spaces and audit logs, as the relative
// XDG_STATE_HOME did (TestRelativeXDGStateHomeIgnored), and "~/" in a path
// setting stayed a folder named "~". The home folder is now the user's
// from the account database, as a shell's ~ is.
func TestDataDirWithoutHOMEIsTheUsersHome(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("HOME is not where the home folder comes from here")
	}
	u, err := user.Current()
	if err != nil || u.HomeDir == "" {
		t.Skipf("no account entry for this user to compare with: %v", err)
	}
	t.Setenv("HOME", "")
	t.Setenv("AIOS_DATA", "")
	t.Setenv("XDG_STATE_HOME", "")
	want := filepath.Join(u.HomeDir, ".local", "state", "aios-host")
	if d := DefaultDataDir(); d != want {
		t.Errorf("data folder without HOME: %q, want %q", d, want)
	}
	if p := ExpandHome("~/x"); p != filepath.Join(u.HomeDir, "x") {
		t.Errorf("~/x without HOME: %q", p)
	}
}
