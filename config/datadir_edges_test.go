package config

import (
	"path/filepath"
	"testing"
)

// TestRelativeXDGStateHomeIgnored: a relative XDG_STATE_HOME ("state",
// or "~/.state" from a systemd Environment= that no shell expands) was
// taken, so the state directory depended on the working directory: a
// `space put` in one folder and a `call` in another used different spaces
// and audit logs. The XDG Base Directory spec makes such a value invalid,
// to be ignored: the default is ~/.local/state/aios-host then. An
// absolute one is taken, and AIOS_DATA still wins over both.
func TestRelativeXDGStateHomeIgnored(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("AIOS_DATA", "")
	fallback := filepath.Join(home, ".local", "state", "aios-host")
	for _, x := range []string{"state", "./state", "~/.state", "../state"} {
		t.Setenv("XDG_STATE_HOME", x)
		if d := DefaultDataDir(); d != fallback {
			t.Errorf("XDG_STATE_HOME=%q: data %q, want %q", x, d, fallback)
		}
	}
	t.Setenv("XDG_STATE_HOME", "/var/lib/u")
	if d := DefaultDataDir(); d != "/var/lib/u/aios-host" {
		t.Errorf("absolute XDG_STATE_HOME: %q", d)
	}
	t.Setenv("AIOS_DATA", "/srv/aios")
	if d := DefaultDataDir(); d != "/srv/aios" {
		t.Errorf("AIOS_DATA: %q", d)
	}
}
