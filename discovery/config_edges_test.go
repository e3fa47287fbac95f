package discovery

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestConfigKeyFileHome: discovery.keys[].jwks: ~/keys.json was
// joined to the config file's folder (<folder>/~/keys.json), while
// discovery.dirs and the top-level paths read "~/" as the home folder.
func TestConfigKeyFileHome(t *testing.T) {
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

// TestConfigRemoteChecked: a discovery.remotes entry without a url,
// with one that is no http(s) URL, with a negative timeout or with both
// token and token_env loaded "fine": the first two were logged later as a
// provider not loaded, naming no file or line, the others taken silently
// (token_env won over token). Each is an error naming file, line and key.
func TestConfigRemoteChecked(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"discovery:\n  remotes:\n    - {token: x}\n", "c.yaml:3: discovery.remotes[0]: no url"},
		{"discovery:\n  remotes:\n    - url: ftp://h\n", `c.yaml:3: discovery.remotes[0].url: "ftp://h" is not an http(s) URL`},
		{"discovery:\n  remotes:\n    - url: http://h\n      timeout: -1s\n", "c.yaml:4: discovery.remotes[0].timeout: -1s is negative"},
		{"discovery:\n  remotes:\n    - {url: http://h, token: a, token_env: B}\n", "c.yaml:3: discovery.remotes[0]: give token or token_env, not both"},
	} {
		cfg, err := config.Parse([]byte(tc.doc), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(cfg); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s…", tc.doc, err, tc.want)
		}
	}
	cfg, err := config.Parse([]byte("discovery:\n  remotes:\n    - {url: https://h:8443/, token_env: T, timeout: 2s}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(cfg); err != nil {
		t.Errorf("a good remote: %v", err)
	}
}
