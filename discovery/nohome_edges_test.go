package discovery

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestNoHOMEUsesAccountHome: with HOME unset, the config's own paths
// took the home folder from the account database (p132), but discovery's
// "~/" paths stayed "~/…" and its default user folders were made
// relative to the working directory (found by p132). Both take the same
// home folder now.
func TestNoHOMEUsesAccountHome(t *testing.T) {
	u, err := user.Current()
	if err != nil || !filepath.IsAbs(u.HomeDir) {
		t.Skipf("no account home folder: %v", err)
	}
	t.Setenv("HOME", "")
	os.Unsetenv("HOME")
	if got := config.HomeDir(); got != u.HomeDir {
		t.Fatalf("config.HomeDir() = %q; want the account's %q", got, u.HomeDir)
	}
	cfg, err := config.Parse([]byte("discovery:\n  dirs: [\"~/adapters\"]\n  desktop_dirs: [\"~/apps\"]\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Dirs) != 1 || c.Dirs[0] != filepath.Join(u.HomeDir, "adapters") || len(c.DesktopDirs) != 1 || c.DesktopDirs[0] != filepath.Join(u.HomeDir, "apps") {
		t.Fatalf("dirs %q, desktop_dirs %q with HOME unset; want them under %s", c.Dirs, c.DesktopDirs, u.HomeDir)
	}
	c, err = LoadConfig(config.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range append(append([]string{}, c.Dirs...), c.DesktopDirs...) {
		if !filepath.IsAbs(d) || strings.HasPrefix(d, "~") {
			t.Errorf("default folder %q with HOME unset; want an absolute path", d)
		}
	}
}
