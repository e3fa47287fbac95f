package mcpserver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aios-host/aios-host/config"
)

// TestHomeInPathKeys: mcp.http.jwks_file: ~/issuer.jwks was opened
// as a file named "~/issuer.jwks" under the working directory, and a
// relative jwks_file was taken from the working directory, so a host
// started by a service manager (working directory /) could not find the
// file beside its config, where README says key files are taken from
// (discovery.keys' jwks, server.signing_key). jwks_file is a key file:
// "~/" is the home folder and a relative path the config file's folder.
func TestHomeInPathKeys(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := t.TempDir()
	abs := filepath.Join(t.TempDir(), "issuer.jwks")
	for jwks, want := range map[string]string{
		"~/issuer.jwks":    filepath.Join(home, "issuer.jwks"),
		"keys/issuer.jwks": filepath.Join(dir, "keys", "issuer.jwks"),
		abs:                abs,
	} {
		// There: a jwks_file that is not is refused (TestJWKSFileMissingRefused).
		if err := os.MkdirAll(filepath.Dir(want), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(want, []byte(`{"keys": []}`), 0o600); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "config.yaml")
		doc := "mcp:\n  http:\n    issuer: https://auth.example.com\n    jwks_file: " + jwks + "\n"
		if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := AddDefaultAgent(cfg); err != nil {
			t.Fatal(err)
		}
		c, err := LoadConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if c.HTTP.JWKSFile != want {
			t.Errorf("jwks_file %s is %q; want %q", jwks, c.HTTP.JWKSFile, want)
		}
	}
}
