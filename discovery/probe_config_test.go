package discovery

import (
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestProbeConfigKeyFileHome: discovery.keys[].jwks: ~/keys.json was
// joined to the config file's folder (<folder>/~/keys.json), while
// discovery.dirs and the top-level paths read "~/" as the home folder.
func TestProbeConfigKeyFileHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	cfg, err := config.Parse([]byte("discovery:\n  dirs: []\n  keys:\n    - {trust: Verified, jwks: ~/keys.json}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, "keys.json"); c.Keys[0].JWKS != want {
		t.Errorf("jwks = %q, want %q", c.Keys[0].JWKS, want)
	}
}
